/**
 * Text from others (run names, worker ids, reasons, messages, file names: whatever a user, a worker or the
 * coordinator sent) made safe for a terminal before the CLI prints it. A run named `\x1b]0;pwned\x07` or one
 * with a newline and a fake table row must print as visible escapes, never move the cursor, retitle the window,
 * reorder text (bidi overrides) or forge lines.
 *
 * Escaped: C0 controls (NUL, BEL, BS, TAB, LF, CR, ESC, ...), DEL, C1 controls (U+0080-U+009F, among them the
 * one-byte CSI U+009B), the line and paragraph separators U+2028/U+2029, and the bidi controls (U+061C, U+200E,
 * U+200F, U+202A-U+202E, U+2066-U+2069). Everything else, including all printable Unicode, passes unchanged.
 * JSON output (`--json`, `--log-format json`) does not go through here: JSON.stringify already escapes C0 controls
 * and JSON is for programs. Used by every CLI view (cli/) and by the text log format (cluster/log.ts), where worker
 * ids, run ids and reasons from messages end up.
 */

// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

const NAMED: Record<string, string> = { "\0": "\\0", "\t": "\\t", "\n": "\\n", "\r": "\\r", "\x1b": "\\e" };

function escapeChar(ch: string): string {
  const named = NAMED[ch];
  if (named) return named;
  const code = ch.charCodeAt(0);
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16).padStart(4, "0")}`;
}

/** `text` with every control, separator and bidi character shown as an escape (`\e`, `\n`, `\x07`, `\u202e`). */
export function terminalSafe(text: string): string {
  return text.replace(UNSAFE, escapeChar);
}


/** Like terminalSafe, but line breaks stay (multi-line error messages); every other control is escaped. */
export function terminalSafeLines(text: string): string {
  return text.split("\n").map(terminalSafe).join("\n");
}
