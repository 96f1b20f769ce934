/**
 * The answer of `solve --all` for people: one line with the count, whether it is exact, and where the boards went.
 * It is the command's answer, so it goes to stdout like a solved board does, unless the boards themselves go there
 * (`-o -`), where it would break the one-JSON-line-per-board stream: then it goes to stderr. `--json` prints the
 * count in its object instead.
 */
import { terminalSafe } from "../cluster/terminal-text.js";

export interface CountLine {
  name: string | undefined;
  count: number;
  complete: boolean;
  /** Why the count stopped short (a limit, the time, a cancel); shown when it is not complete. */
  reason?: string;
  seconds: number;
  /** After the time: ` on 2 worker(s) (40 cubes counted, 0 re-split)`. */
  detail?: string;
  /** -o FILE: every board was written there ("-": stdout). */
  output?: string;
}

/** `clue1: exactly 3 solutions in 0.52 s, every board verified and written to b.ndjson`. */
export function formatCountLine(c: CountLine): string {
  const what = c.complete ? "exactly" : `at least (${c.reason ?? "stopped"})`;
  const written = c.output !== undefined && c.output !== "-" ? `, every board verified and written to ${c.output}` : "";
  return `${terminalSafe(c.name ?? "puzzle")}: ${what} ${c.count} solution${c.count === 1 ? "" : "s"} in ${c.seconds.toFixed(2)} s` +
    `${c.detail ?? ""}${written}\n`;
}

/** Prints the count line: on stdout, or on stderr when the boards go to stdout (`-o -`). */
export function printCountLine(c: CountLine): void {
  (c.output === "-" ? process.stderr : process.stdout).write(formatCountLine(c));
}
