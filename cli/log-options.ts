/**
 * `--log-level` and `--log-format`, shared by the long-running processes (`cubist coordinator`, `cubist worker`).
 */
import type { OptionSpec } from "./args.js";
import { LOG_FORMATS, LOG_LEVELS } from "../cluster/log.js";

export const LOG_OPTIONS: Record<string, OptionSpec> = {
  "log-level": { type: "string", arg: "L", description: "log level", choices: LOG_LEVELS, env: "CUBIST_LOG_LEVEL", default: "info" },
  "log-format": { type: "string", arg: "F", description: "log format: text or json (one object per line)", choices: LOG_FORMATS, env: "CUBIST_LOG_FORMAT", default: "text" },
};
