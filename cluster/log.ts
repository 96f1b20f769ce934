/**
 * One-line structured logs to stderr: `text` (human) or `json` (one object per line), with levels.
 */

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

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

function fmtValue(v: unknown): string {
  if (typeof v === "string") return /[\s"=]/.test(v) ? JSON.stringify(v) : v;
  if (v instanceof Error) return JSON.stringify(v.message);
  return JSON.stringify(v);
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
