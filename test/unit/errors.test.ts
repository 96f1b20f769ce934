/**
 * Errors: every expected error is a CubistError carrying its exit code and gRPC status; the CLI and the API map
 * errors by those fields, never by class names.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { status } from "@grpc/grpc-js";
import { CubistError, EncoderBugError, EXIT, GRPC_STATUS, InvalidOptionError, InvalidPuzzleError } from "../../core/errors.js";
import { describeError, exitCodeFor, InputFileError } from "../../cli/errors.js";
import { UsageError } from "../../cli/args.js";
import { FailedPreconditionError, grpcStatusOf, NotFoundError, RunExistsError, UnimplementedError } from "../../coordinator/api-errors.js";
import { SolverCrashedError, SolverNotFoundError } from "../../host/solver/errors.js";
import { NatsUnavailableError } from "../../cluster/nats.js";

test("errors - the gRPC status numbers are grpc-js's", () => {
  for (const [name, code] of Object.entries(GRPC_STATUS)) assert.equal(code, status[name as keyof typeof status], name);
});

test("errors - exit codes and gRPC statuses come from the error, anything else is internal", () => {
  const cases: Array<[Error, number, status]> = [
    [new InvalidPuzzleError("p.txt", 3, "bad"), EXIT.ERROR, status.INVALID_ARGUMENT],
    [new InvalidOptionError("--x", "bad"), EXIT.ERROR, status.INVALID_ARGUMENT],
    [new EncoderBugError("overlap"), EXIT.ENCODER_BUG, status.INTERNAL],
    [new UsageError("missing argument"), EXIT.USAGE, status.INTERNAL],
    [new InputFileError("cannot read"), EXIT.ERROR, status.INTERNAL],
    [new NotFoundError("no run"), EXIT.ERROR, status.NOT_FOUND],
    [new FailedPreconditionError("ended"), EXIT.ERROR, status.FAILED_PRECONDITION],
    [new UnimplementedError("later"), EXIT.ERROR, status.UNIMPLEMENTED],
    [new RunExistsError("r1"), EXIT.ERROR, status.ALREADY_EXISTS],
    [new NatsUnavailableError("down"), EXIT.ERROR, status.UNAVAILABLE],
    [new SolverNotFoundError("kissat", "missing"), EXIT.ERROR, status.INTERNAL],
    [new SolverCrashedError("kissat", 1, null, "boom", ""), EXIT.ERROR, status.INTERNAL],
    [new Error("a bug"), EXIT.ERROR, status.INTERNAL],
  ];
  for (const [err, exit, grpc] of cases) {
    assert.equal(exitCodeFor(err), exit, err.name);
    assert.equal(grpcStatusOf(err), grpc, err.name);
  }
});

test("errors - expected errors print their message alone, others are marked internal", () => {
  assert.equal(describeError(new InvalidPuzzleError("p.txt", 3, "bad edge"), false), "p.txt:3: bad edge");
  assert.ok(new SolverCrashedError("kissat", 1, null, "", "") instanceof CubistError);
  assert.equal(describeError(new TypeError("x is undefined"), false), "x is undefined (internal error; run with --debug for details)");
  assert.match(describeError(new InvalidOptionError("--x", "bad"), true), /^InvalidOptionError: --x: bad\n\s+at /);
});
