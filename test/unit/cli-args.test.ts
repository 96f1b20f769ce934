/**
 * The command line's words as a new user types them (pure helpers, no process): "did you mean" for mistyped options
 * and commands, negative numbers as option values with a range message, options without a value, which command
 * lines write output files, and the summary lines of `solve --all` and `cube resplit`.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { parseCommand, UsageError, writesOutputFile, type CommandSpec } from "../../cli/args.js";
import { closestName, editDistance } from "../../cli/suggest.js";
import { unknownCommand } from "../../cli/cli.js";
import { formatCountLine } from "../../cli/count-line.js";
import { resplitSummary } from "../../cli/commands/cube-resplit.js";
import { InvalidOptionError } from "../../core/errors.js";

const SOLVE: CommandSpec = {
  name: "solve",
  summary: "Solve a puzzle.",
  usage: "cubist solve <puzzle>",
  positionals: { min: 1, max: 1 },
  options: {
    threads: { type: "integer", arg: "N", description: "cores", min: 1 },
    workers: { type: "integer", arg: "N", description: "workers", min: 1 },
    time: { type: "number", arg: "S", description: "time limit", min: 0 },
    seed: { type: "string", arg: "S", description: "seed" },
    output: { type: "string", short: "o", arg: "FILE", description: "boards", output: true },
    svg: { type: "string", arg: "FILE", description: "picture", output: true },
    json: { type: "boolean", description: "JSON" },
  },
};

/** The message of the error `fn` throws, and that it is of the class given. */
function messageOf(fn: () => unknown, kind: new (...args: never[]) => Error): string {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof kind, `${String(err)} is a ${kind.name}`);
    return err.message;
  }
  assert.fail("no error");
}

test("cli args - an unknown option names the closest known one, or the help", () => {
  assert.equal(messageOf(() => parseCommand(SOLVE, ["p.txt", "--thread", "2"]), UsageError), "unknown option --thread (did you mean --threads?)");
  assert.equal(messageOf(() => parseCommand(SOLVE, ["p.txt", "--worker", "2"]), UsageError), "unknown option --worker (did you mean --workers?)");
  assert.equal(messageOf(() => parseCommand(SOLVE, ["p.txt", "--jsno"]), UsageError), "unknown option --jsno (did you mean --json?)");
  assert.equal(messageOf(() => parseCommand(SOLVE, ["p.txt", "--frobnicate"]), UsageError), "unknown option --frobnicate (see cubist solve --help)");
  assert.equal(messageOf(() => parseCommand(SOLVE, ["p.txt", "-x"]), UsageError), "unknown option -x (see cubist solve --help)");
  // After "--" everything is an argument.
  assert.deepEqual(parseCommand({ ...SOLVE, positionals: { min: 1, max: 2 } }, ["p.txt", "--", "--thread"]).positionals, ["p.txt", "--thread"]);
});

test("cli args - a negative number after an option is its value, refused with the bound in words; an option needs its value", () => {
  assert.equal(messageOf(() => parseCommand(SOLVE, ["p.txt", "--time", "-5"]), InvalidOptionError), "--time: must be 0 or a positive number, got -5");
  assert.equal(messageOf(() => parseCommand(SOLVE, ["p.txt", "--threads", "0"]), InvalidOptionError), "--threads: must be a positive integer, got 0");
  assert.equal(parseCommand(SOLVE, ["p.txt", "--seed", "-7"]).values.seed, "-7", "a string option takes a negative number as it is");
  assert.equal(parseCommand(SOLVE, ["p.txt", "-o", "-"]).values.output, "-", "\"-\" is a value (stdout)");
  assert.equal(messageOf(() => parseCommand(SOLVE, ["p.txt", "--time"]), UsageError), "--time needs a value (--time S; see cubist solve --help)");
  assert.match(messageOf(() => parseCommand(SOLVE, ["p.txt", "--time", "--json"]), UsageError), /^--time needs a value \(--time S; a value that starts with "-" goes as --time=VALUE; /);
  assert.match(messageOf(() => parseCommand(SOLVE, ["p.txt", "-3"]), UsageError), /^unexpected "-3": to give a negative number as an argument, put "--" before it/);
});

test("cli args - a command line writes output files when an output option names a file other than stdout", () => {
  assert.equal(writesOutputFile(SOLVE, parseCommand(SOLVE, ["p.txt", "--svg", "b.svg"]).values), true);
  assert.equal(writesOutputFile(SOLVE, parseCommand(SOLVE, ["p.txt", "-o", "-"]).values), false);
  assert.equal(writesOutputFile(SOLVE, parseCommand(SOLVE, ["p.txt", "--json"]).values), false);
});

test("cli suggest - edit distance counts a swap of neighbours as one; only close names are suggested", () => {
  assert.equal(editDistance("slove", "solve"), 1);
  assert.equal(editDistance("thread", "threads"), 1);
  assert.equal(editDistance("", "abc"), 3);
  assert.equal(closestName("slove", ["solve", "verify", "render"]), "solve");
  assert.equal(closestName("zzz", ["solve", "verify"]), undefined);
  assert.equal(closestName("--certif", ["--certify", "--certificate"]), "--certify");
  assert.equal(closestName("--cert", ["--certify", "--certificate"]), undefined, "two names start with it: no guess");
});

test("cli commands - an unknown command names the closest one; a group alone lists its commands", () => {
  assert.equal(unknownCommand(["slove", "p.txt"], []), 'unknown command "slove" (did you mean solve?)');
  assert.equal(unknownCommand(["sumbit"], []), 'unknown command "sumbit" (see cubist --help)');
  assert.equal(unknownCommand(["run", "sumbit"], ["run submit", "run show"]), '"run sumbit" is not a command (did you mean run submit?)');
  assert.equal(unknownCommand(["run"], ["run submit", "run show"]), '"run" is not a command; try one of: run submit, run show');
  assert.equal(unknownCommand(["puzle", "show"], []), 'unknown command "puzle" (did you mean puzzle show?)');
});

test("solve --all - the count line says exact or a lower bound, and where the boards went", () => {
  assert.equal(formatCountLine({ name: "g", count: 3, complete: true, seconds: 0.5, output: "b.ndjson" }),
    "g: exactly 3 solutions in 0.50 s, every board verified and written to b.ndjson\n");
  assert.equal(formatCountLine({ name: "g", count: 1, complete: false, reason: "limit", seconds: 2, detail: " on 2 worker(s)", output: "-" }),
    "g: at least (limit) 1 solution in 2.00 s on 2 worker(s)\n");
});

test("cube resplit - the summary says when --children N was passed by a whole step (a lower bound)", () => {
  assert.equal(resplitSummary("r", "7", 51, 0, 16),
    "cube 7 re-split into 51 children (0 branches refuted by the splitter; --children 16 is a lower bound: the last placement deeper gave 51, not 16)\n");
  assert.equal(resplitSummary("r", "7", 16, 1, 16), "cube 7 re-split into 16 children (1 branch refuted by the splitter)\n");
  assert.equal(resplitSummary("r", "7", 1, 2, 0), "cube 7 re-split into 1 child (2 branches refuted by the splitter)\n");
  assert.match(resplitSummary("r", "7", 0, 3, 0), /^cube 7 closed without children \(3 branches refuted by the splitter, or a solution found: cubist run show r\)\n$/);
});
