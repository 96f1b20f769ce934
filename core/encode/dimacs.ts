/**
 * DIMACS CNF text for a Formula: a streaming writer that produces byte chunks (digits written by hand into
 * a byte buffer, no string per literal), a string form for tests, and a small parser.
 *
 * Output: `p cnf V C` with V = formula.numVars and C = formula.clauses.count + extraUnits.length, then one
 * clause per line, literals separated by single spaces and ended by `0`. Extra clauses (the unit clauses of
 * a cube) follow the formula's clauses. Every chunk is a fresh buffer: callers may keep them.
 */

import { CubistError } from "../errors.js";
import { InvalidOptionError } from "../errors.js";
import type { Formula } from "./formula.js";

/** Text that is not the DIMACS CNF this module writes (names the 1-based line). */
export class DimacsSyntaxError extends CubistError {
  override readonly name = "DimacsSyntaxError";
  override readonly fault = "task";
  constructor(readonly line: number, readonly reason: string) {
    super(line > 0 ? `DIMACS line ${line}: ${reason}` : `DIMACS: ${reason}`);
  }
}

const ZERO = 48, MINUS = 45, SPACE = 32, NEWLINE = 10;
/** Room for the longest literal ("-2147483647 ") or a clause end ("0\n"), with margin. */
const SLACK = 16;

/** Writes the decimal digits of v > 0 at buf[pos..]; returns the new position. */
function writeUint(buf: Uint8Array, pos: number, v: number): number {
  const len = v < 10 ? 1 : v < 100 ? 2 : v < 1000 ? 3 : v < 10000 ? 4 : v < 100000 ? 5 : v < 1000000 ? 6 :
    v < 10000000 ? 7 : v < 100000000 ? 8 : v < 1000000000 ? 9 : 10;
  let p = pos + len - 1;
  while (v >= 10) {
    const q = (v / 10) | 0;
    buf[p--] = ZERO + (v - q * 10);
    v = q;
  }
  buf[p] = ZERO + v;
  return pos + len;
}

function checkExtra(formula: Pick<Formula, "numVars">, extraUnits: readonly (readonly number[])[]): void {
  for (let i = 0; i < extraUnits.length; i++) {
    for (const lit of extraUnits[i]) {
      if (!Number.isInteger(lit) || lit === 0 || Math.abs(lit) > formula.numVars) {
        throw new InvalidOptionError("extraUnits", `clause ${i} has literal ${lit}, not a nonzero integer within ±${formula.numVars}`);
      }
    }
  }
}

/**
 * The DIMACS text of `formula` (plus `extraUnits`, each an extra clause, usually a unit) as byte chunks of
 * at most `chunkBytes` bytes each.
 */
export function* dimacsChunks(
  formula: Pick<Formula, "numVars" | "clauses">,
  extraUnits: readonly (readonly number[])[] = [],
  chunkBytes = 1 << 20,
): Generator<Uint8Array> {
  if (!Number.isInteger(chunkBytes) || chunkBytes < 64) {
    throw new InvalidOptionError("chunkBytes", `must be an integer of at least 64, got ${chunkBytes}`);
  }
  checkExtra(formula, extraUnits);
  const limit = chunkBytes - SLACK;
  let buf = new Uint8Array(chunkBytes);
  let pos = 0;
  const header = `p cnf ${formula.numVars} ${formula.clauses.count + extraUnits.length}\n`;
  for (let i = 0; i < header.length; i++) buf[pos++] = header.charCodeAt(i);

  const lits = formula.clauses.view();
  const n = lits.length;
  for (let i = 0; i < n; i++) {
    if (pos > limit) {
      yield buf.subarray(0, pos);
      buf = new Uint8Array(chunkBytes);
      pos = 0;
    }
    const v = lits[i];
    if (v === 0) {
      buf[pos++] = ZERO;
      buf[pos++] = NEWLINE;
    } else {
      if (v < 0) {
        buf[pos++] = MINUS;
        pos = writeUint(buf, pos, -v);
      } else {
        pos = writeUint(buf, pos, v);
      }
      buf[pos++] = SPACE;
    }
  }
  for (const clause of extraUnits) {
    for (let i = 0; i <= clause.length; i++) {
      if (pos > limit) {
        yield buf.subarray(0, pos);
        buf = new Uint8Array(chunkBytes);
        pos = 0;
      }
      if (i === clause.length) {
        buf[pos++] = ZERO;
        buf[pos++] = NEWLINE;
        break;
      }
      const v = clause[i];
      if (v < 0) buf[pos++] = MINUS;
      pos = writeUint(buf, pos, Math.abs(v));
      buf[pos++] = SPACE;
    }
  }
  if (pos > 0) yield buf.subarray(0, pos);
}

/** The whole DIMACS text as a string (for tests and small formulas). */
export function dimacsString(formula: Pick<Formula, "numVars" | "clauses">, extraUnits: readonly (readonly number[])[] = []): string {
  const decoder = new TextDecoder();
  let out = "";
  for (const chunk of dimacsChunks(formula, extraUnits)) out += decoder.decode(chunk, { stream: true });
  return out + decoder.decode();
}

/** A parsed DIMACS CNF. */
export interface ParsedDimacs {
  readonly numVars: number;
  readonly clauses: number[][];
}

/**
 * Parses DIMACS CNF text: `c` comment lines, one `p cnf V C` header, clauses ended by 0 (a clause may span
 * lines). Checks that there are exactly C clauses and no literal beyond V.
 */
export function parseDimacs(text: string): ParsedDimacs {
  let numVars = -1, numClauses = -1;
  const clauses: number[][] = [];
  let current: number[] = [];
  const lines = text.split("\n");
  for (let ln = 0; ln < lines.length; ln++) {
    const line = lines[ln].trim();
    if (line === "" || line.startsWith("c")) continue;
    if (line.startsWith("p")) {
      const f = line.split(/\s+/);
      if (numVars >= 0) throw new DimacsSyntaxError(ln + 1, "second header");
      if (f.length !== 4 || f[1] !== "cnf" || !/^\d+$/.test(f[2]) || !/^\d+$/.test(f[3])) {
        throw new DimacsSyntaxError(ln + 1, `bad header '${line}'`);
      }
      numVars = Number(f[2]);
      numClauses = Number(f[3]);
      continue;
    }
    if (numVars < 0) throw new DimacsSyntaxError(ln + 1, "clause before the `p cnf` header");
    for (const tok of line.split(/\s+/)) {
      if (!/^-?\d+$/.test(tok)) throw new DimacsSyntaxError(ln + 1, `'${tok}' is not a literal`);
      const lit = Number(tok);
      if (lit === 0) {
        clauses.push(current);
        current = [];
      } else {
        if (Math.abs(lit) > numVars) throw new DimacsSyntaxError(ln + 1, `literal ${lit} exceeds ${numVars} variables`);
        current.push(lit);
      }
    }
  }
  if (numVars < 0) throw new DimacsSyntaxError(0, "no `p cnf` header");
  if (current.length > 0) throw new DimacsSyntaxError(lines.length, "last clause is not ended by 0");
  if (clauses.length !== numClauses) {
    throw new DimacsSyntaxError(0, `header says ${numClauses} clauses, found ${clauses.length}`);
  }
  return { numVars, clauses };
}
