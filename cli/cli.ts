/**
 * The `cubist` command line. Each command lives in cli/commands/<name>.ts and exports `spec` (its options,
 * which also drive --help) and `run`. Commands are loaded lazily so `cubist --help` and small commands start fast.
 *
 * Errors: expected failures (bad input, missing solver, unreachable NATS) print one line `cubist: <message>` and
 * exit non-zero with no stack trace; `--debug` (or CUBIST_DEBUG=1) adds the stack.
 */

import { formatHelp, parseCommand, UsageError, writesOutputFile, type CommandSpec, type ParsedValues } from "./args.js";
import { finishFilesOnClosedOutput } from "./closed-output.js";
import { EXIT, EXIT_CODES_HELP, exitCodeFor } from "./exit-codes.js";
import { describeError } from "./errors.js";
import { closestName } from "./suggest.js";

export interface CommandModule {
  spec: CommandSpec;
  /** Returns the exit code. */
  run(values: ParsedValues, positionals: string[]): Promise<number>;
}

/** Command words -> module loader. Longest match wins ("run submit" before "run"). */
const COMMANDS: Record<string, () => Promise<CommandModule>> = {
  "solve": () => import("./commands/solve.js"),
  "coordinator": () => import("./commands/coordinator.js"),
  "worker": () => import("./commands/worker.js"),
  "encode": () => import("./commands/encode.js"),
  "verify": () => import("./commands/verify.js"),
  "render": () => import("./commands/render.js"),
  "puzzle gen": () => import("./commands/puzzle-gen.js"),
  "puzzle shuffle": () => import("./commands/puzzle-shuffle.js"),
  "puzzle convert": () => import("./commands/puzzle-convert.js"),
  "puzzle show": () => import("./commands/puzzle-show.js"),
  "run submit": () => import("./commands/run-submit.js"),
  "run list": () => import("./commands/run-list.js"),
  "run show": () => import("./commands/run-show.js"),
  "run best": () => import("./commands/run-best.js"),
  "run watch": () => import("./commands/run-watch.js"),
  "run events": () => import("./commands/run-events.js"),
  "run pause": () => import("./commands/run-pause.js"),
  "run resume": () => import("./commands/run-resume.js"),
  "run cancel": () => import("./commands/run-cancel.js"),
  "run certificate": () => import("./commands/run-certificate.js"),
  "run priority": () => import("./commands/run-priority.js"),
  "run delete": () => import("./commands/run-delete.js"),
  "cubes list": () => import("./commands/cubes-list.js"),
  "cube resplit": () => import("./commands/cube-resplit.js"),
  "solution show": () => import("./commands/solution-show.js"),
  "solution list": () => import("./commands/solution-list.js"),
  "nats users": () => import("./commands/nats-users.js"),
};

const VERSION = "0.1.0";

/** The first sentence of a command's summary (one line of the command list). */
function shortSummary(summary: string): string {
  const m = /^(.*?[.:])(\s|$)/.exec(summary);
  return (m ? m[1] : summary).replace(/[.:]$/, "");
}

/** `  name   description` lines for these commands (their modules are loaded to read their summaries). */
export async function commandList(names: readonly string[]): Promise<string> {
  const width = Math.max(...names.map((n) => n.length));
  // Loaded side by side: the module loader reads the files of all of them at once.
  const mods = await Promise.all(names.map((name) => COMMANDS[name]()));
  return names.map((name, i) => `  ${name.padEnd(width)}  ${shortSummary(mods[i].spec.summary)}`).join("\n");
}

async function topHelp(): Promise<string> {
  return `cubist ${VERSION}: cube-and-conquer SAT solving of edge-matching puzzles (Eternity II and friends)

Usage: cubist <command> [options]     (cubist <command> --help for its options)

Commands:
${await commandList(Object.keys(COMMANDS).sort())}

${EXIT_CODES_HELP}
`;
}

/** `cubist run --help`: the group's commands. */
async function groupHelp(group: string, subs: readonly string[]): Promise<string> {
  return `Usage: cubist ${group} <command> [options]     (cubist ${group} <command> --help for its options)

Commands:
${await commandList(subs)}
`;
}

/**
 * Why argv names no command, with the command the user most likely meant: `unknown command "slove" (did you mean
 * solve?)`, `"run sumbit" is not a command (did you mean run submit?)`; a group alone lists its commands.
 */
export function unknownCommand(argv: readonly string[], subs: readonly string[]): string {
  const words = argv.slice(0, 2).filter((w) => !w.startsWith("-"));
  if (subs.length > 0) {
    const guess = words.length === 2 ? closestName(words.join(" "), subs) : undefined;
    if (guess) return `"${words.join(" ")}" is not a command (did you mean ${guess}?)`;
    return `"${words.join(" ")}" is not a command; try one of: ${subs.join(", ")}`;
  }
  const names = Object.keys(COMMANDS);
  const firstWords = [...new Set(names.map((n) => n.split(" ")[0]))];
  const two = words.length === 2 ? closestName(words.join(" "), names.filter((n) => n.includes(" "))) : undefined;
  const guess = two ?? closestName(argv[0], firstWords);
  return `unknown command "${argv[0]}" ${guess ? `(did you mean ${guess}?)` : "(see cubist --help)"}`;
}

export async function main(argv: string[]): Promise<number> {
  if (argv.length === 0 || argv[0] === "--help" || argv[0] === "-h" || argv[0] === "help") {
    process.stdout.write(await topHelp());
    return argv.length === 0 ? EXIT.USAGE : EXIT.OK;
  }
  if (argv[0] === "--version" || argv[0] === "-V") {
    process.stdout.write(`cubist ${VERSION}\n`);
    return EXIT.OK;
  }
  let key: string | undefined;
  let words = 0;
  for (let n = Math.min(3, argv.length); n >= 1; n--) {
    const candidate = argv.slice(0, n).join(" ");
    if (COMMANDS[candidate]) {
      key = candidate;
      words = n;
      break;
    }
  }
  const debug = argv.includes("--debug") || /^(1|true|yes)$/i.test(process.env.CUBIST_DEBUG ?? "");
  if (!key) {
    const prefix = argv[0];
    const subs = Object.keys(COMMANDS).filter((k) => k.startsWith(prefix + " "));
    const wantsHelp = argv.length === 2 && (argv[1] === "--help" || argv[1] === "-h" || argv[1] === "help");
    if (subs.length > 0 && wantsHelp) {
      process.stdout.write(await groupHelp(prefix, subs));
      return EXIT.OK;
    }
    process.stderr.write(`cubist: ${unknownCommand(argv, subs)}\n`);
    return EXIT.USAGE;
  }
  try {
    const mod = await COMMANDS[key]();
    const { values, positionals } = parseCommand(mod.spec, argv.slice(words));
    if (values.help) {
      process.stdout.write(formatHelp(mod.spec));
      return EXIT.OK;
    }
    if (writesOutputFile(mod.spec, values)) finishFilesOnClosedOutput();
    return await mod.run(values, positionals);
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`cubist ${key}: ${err.message}\n`);
      return EXIT.USAGE;
    }
    process.stderr.write(`cubist ${key}: ${describeError(err, debug)}\n`);
    return exitCodeFor(err);
  }
}
