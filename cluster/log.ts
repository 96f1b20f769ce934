/**
 * One-line structured logs to stderr: `text` (human) or `json` (one object per line), with levels.
 */

import { terminalSafe } from "./terminal-text.js";
import { InvalidOptionError } from "../core/errors.js";

export type LogLevel = "debug" | "info" | "warn" | "error";
export type LogFormat = "text" | "json";
export type LogFields = Record<string, unknown>;

export interface Logger {
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
  child(fields: LogFields): Logger;
}

export const LOG_LEVELS: readonly LogLevel[] = ["debug", "info", "warn", "error"];
export const LOG_FORMATS: readonly LogFormat[] = ["text", "json"];

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

/** Validates `--log-level` and `--log-format` (defaults: info, text) for a process config. */
export function logOptions(input: { logLevel?: string; logFormat?: string }): { logLevel: LogLevel; logFormat: LogFormat } {
  const logLevel = (input.logLevel ?? "info") as LogLevel;
  if (!LOG_LEVELS.includes(logLevel)) throw new InvalidOptionError("--log-level", `unknown level "${logLevel}"`);
  const logFormat = (input.logFormat ?? "text") as LogFormat;
  if (!LOG_FORMATS.includes(logFormat)) throw new InvalidOptionError("--log-format", `unknown format "${logFormat}"`);
  return { logLevel, logFormat };
}

/** A field value for a text line: quoted when it has spaces, quotes or "="; never a raw control (cluster/terminal-text.ts). */
function fmtValue(v: unknown): string {
  if (typeof v === "string") return terminalSafe(/[\s"=]/.test(v) ? JSON.stringify(v) : v);
  if (v instanceof Error) return terminalSafe(JSON.stringify(v.message));
  return terminalSafe(JSON.stringify(v) ?? String(v));
}

export function createLogger(options: {
  level?: LogLevel;
  format?: LogFormat;
  component: string;
  write?: (line: string) => void;
  fields?: LogFields;
}): Logger {
  const min = RANK[options.level ?? "info"];
  const format = options.format ?? "text";
  const write = options.write ?? ((line: string) => process.stderr.write(line + "\n"));
  const make = (base: LogFields): Logger => {
    const emit = (level: LogLevel, msg: string, fields?: LogFields): void => {
      if (RANK[level] < min) return;
      const all = { ...base, ...fields };
      if (format === "json") {
        write(JSON.stringify({ time: new Date().toISOString(), level, component: options.component, msg, ...all }));
      } else {
        const kv = Object.entries(all)
          .filter(([, v]) => v !== undefined)
          .map(([k, v]) => `${k}=${fmtValue(v)}`)
          .join(" ");
        write(`${new Date().toISOString()} ${level.padEnd(5)} ${options.component}: ${msg}${kv ? " " + kv : ""}`);
      }
    };
    return {
      debug: (m, f) => emit("debug", m, f),
      info: (m, f) => emit("info", m, f),
      warn: (m, f) => emit("warn", m, f),
      error: (m, f) => emit("error", m, f),
      child: (f) => make({ ...base, ...f }),
    };
  };
  return make(options.fields ?? {});
}

/** A logger that drops everything (tests, library use). */
export const silentLogger: Logger = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
  child: () => silentLogger,
};
