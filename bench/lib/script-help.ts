/**
 * What bench scripts share at their start: `--help` prints the script's opening comment, and a usage failure
 * names the script and exits 2.
 */

import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** Prints the opening block comment of the script at `moduleUrl` (its `import.meta.url`) and exits 0. */
export function printScriptHelp(moduleUrl: string): never {
  const text = readFileSync(fileURLToPath(moduleUrl), "utf8");
  process.stdout.write(text.slice(text.indexOf("/**") + 3, text.indexOf("*/")).replace(/^ \* ?/gm, "") + "\n");
  process.exit(0);
}

/** A usage failure of script `name`: the message on stderr, exit code 2. */
export function usageFailure(name: string): (message: string) => never {
  return (message) => {
    process.stderr.write(`${name}: ${message}\n`);
    process.exit(2);
  };
}
