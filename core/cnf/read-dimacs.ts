/**
 * Reading DIMACS CNF from bytes: `c` comment lines, one `p cnf V C` header, then clauses of literals ended by 0 (a
 * clause may span lines, several may share one). The header's clause count must match the clauses found, and no
 * literal may name a variable beyond V. Every error names the file and line. Decompression (gzip) and the byte
 * limit of the text are the I/O layer's (cli/cnf-io.ts); the variable limit is here.
 *
 * The parser works on bytes, not a string per line, so a formula of the size limit (128 MB of DIMACS) is read
 * without a copy per line.
 */

import { ClauseBuffer } from "../encode/formula.js";
import { InvalidFormulaError, type Cnf } from "./cnf.js";

/** The most variables a formula may have (a literal must fit a 32-bit signed integer, as in Kissat). */
export const MAX_CNF_VARS = 2 ** 31 - 2;

const NL = 10, CR = 13, SPACE = 32, TAB = 9, MINUS = 45, ZERO = 48, NINE = 57;
const CHAR_C = 99, CHAR_P = 112, PERCENT = 37;

/** Reads `bytes` as DIMACS CNF; `file` names it in errors. Throws InvalidFormulaError. */
export function readDimacs(bytes: Uint8Array, file: string): Cnf {
  const n = bytes.length;
  let i = 0;
  let line = 1;
  let numVars = -1;
  let declared = -1;
  let clauses: ClauseBuffer | null = null;
  let clause: number[] = [];
  let clauseLine = 0;
  const fail = (reason: string, at = line): never => {
    throw new InvalidFormulaError(file, at, reason);
  };
  const lineText = (from: number): string => {
    let end = from;
    while (end < n && bytes[end] !== NL && end - from < 60) end++;
    return Buffer.from(bytes.subarray(from, end)).toString("latin1").replace(/\r$/, "");
  };
  while (i < n) {
    const b = bytes[i];
    if (b === NL) {
      line++;
      i++;
    } else if (b === SPACE || b === TAB || b === CR) {
      i++;
    } else if (b === CHAR_C) {
      while (i < n && bytes[i] !== NL) i++;
    } else if (b === PERCENT && clauses !== null) {
      // SATLIB's uf files end with a `%` line and a stray "0": the data ends there.
      break;
    } else if (b === CHAR_P) {
      if (clauses !== null) fail("a second `p cnf` header");
      const m = /^p\s+cnf\s+(\d+)\s+(\d+)\s*$/.exec(lineText(i));
      if (!m) fail(`bad header "${lineText(i)}" (expected "p cnf VARIABLES CLAUSES")`);
      numVars = Number(m![1]);
      declared = Number(m![2]);
      if (numVars > MAX_CNF_VARS) fail(`${numVars} variables, above the most a solver takes (${MAX_CNF_VARS})`);
      clauses = new ClauseBuffer(Math.min(1 << 20, Math.max(16, declared * 4)));
      while (i < n && bytes[i] !== NL) i++;
    } else if (b === MINUS || (b >= ZERO && b <= NINE)) {
      if (clauses === null) fail("a clause before the `p cnf` header");
      const start = i;
      const negative = b === MINUS;
      if (negative) i++;
      let v = 0;
      let digits = 0;
      while (i < n && bytes[i] >= ZERO && bytes[i] <= NINE) {
        v = v * 10 + (bytes[i] - ZERO);
        if (v > numVars) v = numVars + 1; // clamped: reported below, never loses precision
        digits++;
        i++;
      }
      if (digits === 0 || (i < n && bytes[i] !== SPACE && bytes[i] !== TAB && bytes[i] !== NL && bytes[i] !== CR)) {
        fail(`"${lineText(start).split(/\s/)[0]}" is not a literal`);
      }
      if (v === 0) {
        if (negative) fail('"-0" is not a literal');
        clauses!.add(clause);
        clause = [];
        continue;
      }
      if (v > numVars) fail(`literal ${negative ? "-" : ""}${lineText(start + (negative ? 1 : 0)).split(/\s/)[0]} names a variable beyond the header's ${numVars}`);
      if (clause.length === 0) clauseLine = line;
      clause.push(negative ? -v : v);
    } else {
      fail(`unexpected "${lineText(i).split(/\s/)[0]}" (a DIMACS line is a comment "c ...", the header "p cnf V C", or literals ended by 0)`);
    }
  }
  if (clauses === null) return fail("no `p cnf` header", 0);
  if (clause.length > 0) fail("the last clause is not ended by 0", clauseLine);
  if (clauses.count !== declared) fail(`the header declares ${declared} clauses, the file has ${clauses.count}`, 0);
  return { numVars, clauses };
}
