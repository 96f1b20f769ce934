/**
 * A small declarative layer over node:util parseArgs: each command declares its options once, and the
 * same declaration drives parsing, validation, environment-variable fallbacks and `--help` text.
 */

import { parseArgs } from "node:util";
import { CubistError, InvalidOptionError } from "../core/errors.js";
import { closestName } from "./suggest.js";

export type OptionType = "string" | "boolean" | "number" | "integer";

export interface OptionSpec {
  type: OptionType;
  /** One-letter alias. */
  short?: string;
  /** Shown in --help. */
  description: string;
  /** Placeholder in --help (`--time S`). */
  arg?: string;
  default?: string | number | boolean;
  /** Environment variable consulted when the flag is absent. */
  env?: string;
  /** Allowed values (strings). */
  choices?: readonly string[];
  min?: number;
  max?: number;
  multiple?: boolean;
  /**
   * The value names a file or directory the command writes (`--svg FILE`, `-o FILE`; "-" is stdout): the command
   * finishes it even when the reader of its stdout goes away (cli/closed-output.ts).
   */
  output?: boolean;
}

export interface CommandSpec {
  /** e.g. "solve" or "run submit". */
  name: string;
  summary: string;
  usage: string;
  options: Record<string, OptionSpec>;
  /** Extra help text after the options (exit codes, examples). */
  details?: string;
  /** Positional argument count bounds. */
  positionals?: { min: number; max: number };
}

export type ParsedValues = Record<string, string | number | boolean | string[] | undefined>;

export const COMMON_OPTIONS: Record<string, OptionSpec> = {
  help: { type: "boolean", short: "h", description: "show this help" },
  debug: { type: "boolean", description: "print stack traces and debug logs", env: "CUBIST_DEBUG" },
};

/** Thrown for a command line that cannot be parsed; exit code 2 (cli/exit-codes.ts). */
export class UsageError extends CubistError {
  override readonly name = "UsageError";
  override readonly fault = "task";
}

/** "must be 0 or a positive number", "must be a positive integer", "must be at least 2": the lower bound in words. */
function lowerBound(spec: OptionSpec): string {
  const kind = spec.type === "integer" ? "integer" : "number";
  if (spec.min === 0) return `must be 0 or a positive ${kind}`;
  if (spec.min === 1 && spec.type === "integer") return "must be a positive integer";
  return `must be at least ${spec.min}`;
}

function convert(name: string, spec: OptionSpec, raw: string): string | number {
  if (spec.type === "number" || spec.type === "integer") {
    const n = Number(raw);
    if (raw.trim() === "" || !Number.isFinite(n)) throw new InvalidOptionError(`--${name}`, `expected a number, got "${raw}"`);
    if (spec.type === "integer" && !Number.isInteger(n)) throw new InvalidOptionError(`--${name}`, `expected an integer, got "${raw}"`);
    if (spec.min !== undefined && n < spec.min) throw new InvalidOptionError(`--${name}`, `${lowerBound(spec)}, got ${n}`);
    if (spec.max !== undefined && n > spec.max) throw new InvalidOptionError(`--${name}`, `must be at most ${spec.max}, got ${n}`);
    return n;
  }
  if (spec.choices && !spec.choices.includes(raw)) {
    throw new InvalidOptionError(`--${name}`, `must be one of ${spec.choices.join(", ")}; got "${raw}"`);
  }
  return raw;
}

const NEGATIVE_NUMBER = /^-(\d|\.\d)/;

/**
 * Checks the option words of argv before node's parser sees them, so that mistakes get messages a user can act on:
 * an unknown option names the closest known one (`--thread` -> `--threads`), an option without its value says so,
 * and a negative number after an option that takes a value is that value (`--time -5`, then range-checked), not an
 * option. Returns argv with such values joined to their option (`--time=-5`).
 */
function checkOptionWords(spec: CommandSpec, all: Record<string, OptionSpec>, argv: readonly string[]): string[] {
  const shorts = new Map(Object.entries(all).filter(([, o]) => o.short).map(([name, o]) => [o.short!, name]));
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i];
    if (word === "--") return [...out, ...argv.slice(i)];
    if (!word.startsWith("-") || word === "-") {
      out.push(word);
      continue;
    }
    if (NEGATIVE_NUMBER.test(word)) {
      throw new UsageError(`unexpected "${word}": to give a negative number as an argument, put "--" before it (cubist ${spec.name} ... -- ${word})`);
    }
    const long = word.startsWith("--");
    const name = long ? word.slice(2).split("=")[0] : valueLetter(word, shorts, all);
    const option = long ? all[name] : shorts.has(name) ? all[shorts.get(name)!] : undefined;
    if (!option) throw unknownOption(spec, all, long ? `--${name}` : `-${name}`);
    const flag = long ? `--${name}` : `-${name}`;
    const inline = long ? word.includes("=") : word.length > 2;
    const next = argv[i + 1];
    if (option.type === "boolean" || inline) {
      out.push(word);
    } else if (next !== undefined && NEGATIVE_NUMBER.test(next)) {
      out.push(long ? `${word}=${next}` : `${word}${next}`);
      i++;
    } else if (next === undefined || (next.startsWith("-") && next !== "-")) {
      const dash = next === undefined ? "" : `; a value that starts with "-" goes as ${flag}=VALUE`;
      throw new UsageError(`${flag} needs a value (${flag} ${option.arg ?? "VALUE"}${dash}; see cubist ${spec.name} --help)`);
    } else {
      out.push(word);
    }
  }
  return out;
}

/** The letter of a short option word that decides its meaning: the first one not a known boolean flag (`-vo` -> o). */
function valueLetter(word: string, shorts: ReadonlyMap<string, string>, all: Record<string, OptionSpec>): string {
  for (const letter of word.slice(1)) {
    const name = shorts.get(letter);
    if (name === undefined || all[name].type !== "boolean") return letter;
  }
  return word[word.length - 1];
}

function unknownOption(spec: CommandSpec, all: Record<string, OptionSpec>, flag: string): UsageError {
  const names = Object.keys(all).map((n) => `--${n}`);
  const guess = closestName(flag.replace(/^-+/, "--"), names);
  return new UsageError(`unknown option ${flag} ${guess ? `(did you mean ${guess}?)` : `(see cubist ${spec.name} --help)`}`);
}

/** Parses argv (after the command words) against the spec; env fallbacks from `env`. */
export function parseCommand(
  spec: CommandSpec,
  argv: string[],
  env: NodeJS.ProcessEnv = process.env,
): { values: ParsedValues; positionals: string[] } {
  const all = { ...COMMON_OPTIONS, ...spec.options };
  const options: Record<string, { type: "string" | "boolean"; short?: string; multiple?: boolean }> = {};
  for (const [name, o] of Object.entries(all)) {
    options[name] = { type: o.type === "boolean" ? "boolean" : "string" };
    if (o.short) options[name].short = o.short;
    if (o.multiple) options[name].multiple = true;
  }
  const args = checkOptionWords(spec, all, argv);
  let parsed;
  try {
    parsed = parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (err) {
    throw new UsageError(`${(err as Error).message.replace(/^.*?: /, "")} (see cubist ${spec.name} --help)`);
  }
  const values: ParsedValues = {};
  for (const [name, o] of Object.entries(all)) {
    let raw = parsed.values[name] as string | boolean | string[] | undefined;
    if (raw === undefined && o.env && env[o.env] !== undefined && env[o.env] !== "") {
      const e = env[o.env] as string;
      raw = o.type === "boolean" ? !/^(0|false|no)$/i.test(e) : e;
    }
    if (raw === undefined) {
      values[name] = o.default;
      continue;
    }
    if (Array.isArray(raw)) values[name] = raw.map((r) => String(convert(name, o, r)));
    else if (typeof raw === "boolean") values[name] = raw;
    else values[name] = convert(name, o, raw);
  }
  const positionals = parsed.positionals;
  if (!values.help && spec.positionals) {
    if (positionals.length < spec.positionals.min) {
      throw new UsageError(`missing argument: usage: ${spec.usage}`);
    }
    if (positionals.length > spec.positionals.max) {
      throw new UsageError(`unexpected argument "${positionals[spec.positionals.max]}": usage: ${spec.usage}`);
    }
  }
  return { values, positionals };
}

/** True when the parsed command line names an output file (an `output` option given, other than "-"). */
export function writesOutputFile(spec: CommandSpec, values: ParsedValues): boolean {
  return Object.entries(spec.options).some(([name, o]) => o.output === true && typeof values[name] === "string" && values[name] !== "-");
}

/** The --help text of a command. */
export function formatHelp(spec: CommandSpec): string {
  const all = { ...spec.options, ...COMMON_OPTIONS };
  const rows = Object.entries(all).map(([name, o]) => {
    const flag = `${o.short ? `-${o.short}, ` : "    "}--${name}${o.type === "boolean" ? "" : ` ${o.arg ?? "VALUE"}`}`;
    const extra: string[] = [];
    if (o.choices) extra.push(`one of: ${o.choices.join(", ")}`);
    if (o.default !== undefined && o.default !== false) extra.push(`default: ${o.default}`);
    if (o.env) extra.push(`env: ${o.env}`);
    return [flag, o.description + (extra.length ? ` (${extra.join("; ")})` : "")];
  });
  const width = Math.min(34, Math.max(...rows.map((r) => r[0].length)) + 2);
  const lines = rows.map(([f, d]) => (f.length >= width ? `  ${f}\n  ${" ".repeat(width)}${d}` : `  ${f.padEnd(width)}${d}`));
  return `${spec.summary}\n\nUsage: ${spec.usage}\n\nOptions:\n${lines.join("\n")}\n${spec.details ? `\n${spec.details.trimEnd()}\n` : ""}`;
}
