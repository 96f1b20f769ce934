/**
 * Errors: one family. Every expected error is a CubistError that says whose fault it is (core/errors.ts); the CLI
 * (cli/exit-codes.ts) and the API (coordinator/serve/api-errors.ts) map errors to exit codes and gRPC statuses, each in
 * one place.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { status } from "@grpc/grpc-js";
import { CubistError, EncoderBugError, faultOf, InvalidOptionError, InvalidPuzzleError, RETRY, type Fault } from "../../core/errors.js";
import { LimitExceededError } from "../../core/limits.js";
import { DimacsSyntaxError } from "../../core/encode/dimacs.js";
import { describeError, InputFileError } from "../../cli/errors.js";
import { EXIT, exitCodeFor } from "../../cli/exit-codes.js";
import { UsageError } from "../../cli/args.js";
import { ClusterError } from "../../cli/client.js";
import { NatsServerStartError } from "../../cli/nats-launcher.js";
import { faultOfStatus, grpcStatusOf } from "../../coordinator/serve/api-errors.js";
import { FailedPreconditionError, NotFoundError, RunExistsError, UnimplementedError } from "../../coordinator/errors.js";
import { SolverCrashedError, SolverNotFoundError, SolverOutputError } from "../../host/solver/errors.js";
import { FormulaUnavailableError } from "../../host/formula-cache.js";
import { JetStreamUnavailableError, NatsUnavailableError } from "../../cluster/nats.js";
import { BodyTooLargeError } from "../../cluster/http.js";
import { ProofUnavailableError } from "../../certify/proof-store.js";
import { EngineCrashedError, EngineNotFoundError, EngineOutputError } from "../../worker/engine/index.js";
import { LayoutUnavailableError } from "../../worker/main.js";

test("errors - every error says whose fault it is: the worker's, the task's, a passing failure, or Cubist's own", () => {
  const cases: Array<[CubistError, Fault]> = [
    [new SolverNotFoundError("kissat", "missing"), "worker"],
    [new SolverCrashedError("kissat", 1, null, "boom", ""), "worker"],
    [new SolverOutputError("kissat", 10, "no model", ""), "worker"],
    [new EngineNotFoundError("cubist-engine", "not built"), "worker"],
    [new EngineCrashedError("killed by SIGSEGV"), "worker"],
    [new EngineOutputError("bad v line"), "worker"],
    [new NatsServerStartError("no nats-server"), "worker"],
    [new FormulaUnavailableError("hash mismatch"), "task"],
    [new ProofUnavailableError("not in the store"), "task"],
    [new InvalidPuzzleError("p.txt", 3, "bad"), "task"],
    [new InvalidOptionError("--x", "bad"), "task"],
    [new LimitExceededError("cells", "too big"), "task"],
    [new DimacsSyntaxError(2, "bad literal"), "task"],
    [new UsageError("missing argument"), "task"],
    [new InputFileError("cannot read"), "task"],
    [new BodyTooLargeError("too large"), "task"],
    [new NotFoundError("no run"), "task"],
    [new NatsUnavailableError("down"), "transient"],
    [new JetStreamUnavailableError("off"), "transient"],
    [new LayoutUnavailableError("not yet"), "transient"],
    [new ClusterError(status.UNAVAILABLE, "unreachable"), "transient"],
    [new ClusterError(status.NOT_FOUND, "no run"), "task"],
    [new EncoderBugError("overlap"), "internal"],
  ];
  for (const [err, fault] of cases) {
    assert.ok(err instanceof CubistError && err instanceof Error, err.name);
    assert.equal(err.fault, fault, err.name);
    assert.equal(faultOf(err), fault, err.name);
    assert.equal(err.retry, RETRY[fault], err.name);
  }
  assert.deepEqual(RETRY, { worker: "elsewhere", task: "never", transient: "later", internal: "never" });
});

test("errors - anything else: a failed system call is the machine's, other throws are internal unless the caller knows better", () => {
  const enospc = Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC", syscall: "write", errno: -28 });
  assert.equal(faultOf(enospc), "worker");
  assert.equal(faultOf(new TypeError("x is undefined")), "internal");
  assert.equal(faultOf(new Error("TIMEOUT"), "transient"), "transient");
  assert.equal(faultOf("a string"), "internal");
});

test("errors - exit codes and gRPC statuses are mapped at the CLI and the API boundary; anything else is 1 and INTERNAL", () => {
  const cases: Array<[Error, number, status]> = [
    [new InvalidPuzzleError("p.txt", 3, "bad"), EXIT.ERROR, status.INVALID_ARGUMENT],
    [new InvalidOptionError("--x", "bad"), EXIT.ERROR, status.INVALID_ARGUMENT],
    [new LimitExceededError("cells", "too big"), EXIT.ERROR, status.INVALID_ARGUMENT],
    [new EncoderBugError("overlap"), EXIT.ENCODER_BUG, status.INTERNAL],
    [new UsageError("missing argument"), EXIT.USAGE, status.INVALID_ARGUMENT],
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
  // A status read back by a client names the same fault the server mapped from.
  for (const fault of ["task", "transient"] as const) {
    const err = fault === "task" ? new InvalidOptionError("--x", "bad") : new NatsUnavailableError("down");
    assert.equal(faultOfStatus(grpcStatusOf(err)), fault);
  }
});

test("errors - expected errors print their message alone, others are marked internal", () => {
  assert.equal(describeError(new InvalidPuzzleError("p.txt", 3, "bad edge"), false), "p.txt:3: bad edge");
  assert.equal(describeError(new EngineNotFoundError("/x/cubist-engine", "not built"), false), "placement engine /x/cubist-engine: not built; build it with scripts/setup.sh (or npm run build)");
  assert.equal(describeError(new TypeError("x is undefined"), false), "x is undefined (internal error; run with --debug for details)");
  assert.match(describeError(new InvalidOptionError("--x", "bad"), true), /^InvalidOptionError: --x: bad\n\s+at /);
});
