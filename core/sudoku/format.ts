/**
 * The Sudoku text formats:
 *
 * - a grid: one line per row, N lines; a row is N cells, each one character (`1`-`9`, then `A`-`P` for 10-25,
 *   `.` or `0` for a blank) or, for boards above 9x9, whitespace-separated numbers (`0` or `.` blank). Box rules
 *   (`|`, `+`, `-` lines such as `------+-------+------`) are ignored, as are blanks between single characters.
 * - the one-line form: N*N characters on one line (81 for 9x9, 256, 625; a 4x4 is a grid), as in the public puzzle
 *   collections.
 *
 * Lines starting with `#` are comments; `# name: X` names the puzzle. Errors name file:line.
 */

import { InvalidPuzzleError } from "../errors.js";
import { MAX_BOX, MIN_BOX, type Sudoku } from "./sudoku.js";

const SIDES = Array.from({ length: MAX_BOX - MIN_BOX + 1 }, (_, i) => (MIN_BOX + i) ** 2);
const CHARS = "123456789ABCDEFGHIJKLMNOP";

/** A digit of a one-character cell: 0 for a blank, -1 for no digit. */
function charDigit(ch: string, size: number): number {
  if (ch === "." || ch === "0") return 0;
  const d = CHARS.indexOf(ch.toUpperCase()) + 1;
  return d >= 1 && d <= size ? d : -1;
}

/** The cells of one row's text, or a reason it is not a row of `size` cells. */
function parseRow(text: string, size: number | null): number[] | string {
  const stripped = text.replace(/[|+]/g, " ").trim();
  const tokens = stripped.split(/\s+/);
  const multi = tokens.some((t) => t.length > 1) && tokens.every((t) => /^(\d+|\.)$/.test(t)) && tokens.length > 9;
  if (multi) {
    const n = size ?? tokens.length;
    const cells = tokens.map((t) => (t === "." ? 0 : Number(t)));
    const bad = cells.findIndex((d) => !(Number.isInteger(d) && d >= 0 && d <= n));
    return bad >= 0 ? `"${tokens[bad]}" is not a digit 1..${n} or a blank` : cells;
  }
  const chars = stripped.replace(/\s+/g, "");
  const n = size ?? chars.length;
  const cells = [...chars].map((ch) => charDigit(ch, n));
  const bad = cells.indexOf(-1);
  return bad >= 0 ? `"${chars[bad]}" is not a digit 1..${n} (${CHARS.slice(0, n)}) or a blank (. or 0)` : cells;
}

/** A box rule line between bands (`------+------+------`). */
function isRule(line: string): boolean {
  return /^[-+=|\s]+$/.test(line) && line.includes("-");
}

/** Reads a Sudoku (grid or one-line form); `file` names it in errors. Throws InvalidPuzzleError. */
export function parseSudoku(text: string, file: string): Sudoku {
  let name: string | undefined;
  const rows: { line: number; cells: number[] }[] = [];
  let size: number | null = null;
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].replace(/\r$/, "").trim();
    if (line === "" || isRule(line)) continue;
    if (line.startsWith("#")) {
      const m = /^#\s*name:\s*(.+)$/.exec(line);
      if (m) name = m[1].trim();
      continue;
    }
    if (rows.length === 0 && size === null && SIDES.some((n) => n >= 9 && n * n === line.length) && !/\s/.test(line)) {
      const n = Math.sqrt(line.length);
      const cells = parseRow(line, n);
      if (typeof cells === "string") throw new InvalidPuzzleError(file, i + 1, cells);
      rows.push({ line: i + 1, cells });
      size = n;
      for (let k = i + 1; k < lines.length; k++) {
        const rest = lines[k].trim();
        if (rest !== "" && !rest.startsWith("#")) throw new InvalidPuzzleError(file, k + 1, "a second puzzle after a one-line puzzle (one puzzle per file)");
      }
      return build(file, n, [...cells], name);
    }
    const cells = parseRow(line, size);
    if (typeof cells === "string") throw new InvalidPuzzleError(file, i + 1, cells);
    if (size === null) {
      if (!SIDES.includes(cells.length)) throw new InvalidPuzzleError(file, i + 1, `a row of ${cells.length} cells: a Sudoku is ${SIDES.map((n) => `${n}x${n}`).join(", ")}`);
      size = cells.length;
    }
    if (cells.length !== size) throw new InvalidPuzzleError(file, i + 1, `a row of ${cells.length} cells, the first row has ${size}`);
    if (rows.length === size) throw new InvalidPuzzleError(file, i + 1, `more than ${size} rows`);
    rows.push({ line: i + 1, cells });
  }
  if (size === null) throw new InvalidPuzzleError(file, 0, "no rows: a Sudoku is a line per row, or one line of 81 (or 256, 625) cells");
  if (rows.length !== size) throw new InvalidPuzzleError(file, 0, `${rows.length} rows, a ${size}x${size} Sudoku has ${size}`);
  return build(file, size, rows.flatMap((r) => r.cells), name);
}

function build(file: string, size: number, cells: number[], name: string | undefined): Sudoku {
  if (cells.length !== size * size) throw new InvalidPuzzleError(file, 0, `${cells.length} cells, a ${size}x${size} Sudoku has ${size * size}`);
  return { box: Math.round(Math.sqrt(size)), size, cells, ...(name !== undefined ? { name } : {}) };
}

/** The grid text of a Sudoku (one character per cell up to 25x25, `.` for blanks), parseable by parseSudoku. */
export function writeSudoku(s: Sudoku): string {
  const out: string[] = s.name !== undefined ? [`# name: ${s.name}`] : [];
  for (let r = 0; r < s.size; r++) out.push(s.cells.slice(r * s.size, (r + 1) * s.size).map((d) => (d === 0 ? "." : CHARS[d - 1])).join(""));
  return out.join("\n") + "\n";
}

/** The one-line form: N*N characters. */
export function oneLine(s: Sudoku): string {
  return s.cells.map((d) => (d === 0 ? "." : CHARS[d - 1])).join("");
}

/** A file name that names a Sudoku: .sudoku or .sdk. */
export function isSudokuPath(path: string): boolean {
  return /\.(sudoku|sdk)$/i.test(path);
}
