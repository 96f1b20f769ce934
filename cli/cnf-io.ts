/**
 * Reading a DIMACS file for `cubist solve F.cnf` and `run submit F.cnf`: plain or gzipped (recognized by its magic
 * bytes, whatever the name), "-" for stdin. Both the file and its decompressed text are bounded by the formula limit
 * (`--max-formula-mb`, core/limits.ts): a larger file is refused before it is read whole, a gzip bomb when its
 * output passes the limit. Parse errors name file:line (core/cnf/read-dimacs.ts).
 */

import { gunzipSync } from "node:zlib";
import { checkFormulaSize, type SizeLimits } from "../core/limits.js";
import type { Cnf } from "../core/cnf/cnf.js";
import { readDimacs } from "../core/cnf/read-dimacs.js";
import { fileProblem, readFileBounded, readStreamBounded, type BoundedRead } from "../cluster/read-bounded.js";
import { InputFileError } from "./errors.js";

/** A file name that names a DIMACS CNF: .cnf or .dimacs, plain or with .gz. */
export function isCnfPath(path: string): boolean {
  return /\.(cnf|dimacs)(\.gz)?$/i.test(path);
}

/** The DIMACS text of `path` (gunzipped when it is gzip), within `limits.maxFormulaBytes`. */
export async function readCnfBytes(path: string, limits: SizeLimits): Promise<Buffer> {
  const label = path === "-" ? "<stdin>" : path;
  let read: BoundedRead;
  try {
    read = path === "-" ? await readStreamBounded(process.stdin, limits.maxFormulaBytes) : readFileBounded(path, limits.maxFormulaBytes);
  } catch (err) {
    throw new InputFileError(`${label}: cannot read: ${fileProblem(err)}`, { cause: err });
  }
  if (!read.ok) {
    checkFormulaSize(read.size ?? limits.maxFormulaBytes + 1, limits, label);
    throw new Error("unreachable: a read above the limit passed the limit");
  }
  const data = read.data;
  if (data.length < 2 || data[0] !== 0x1f || data[1] !== 0x8b) return data;
  try {
    return gunzipSync(data, { maxOutputLength: limits.maxFormulaBytes });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ERR_BUFFER_TOO_LARGE") checkFormulaSize(limits.maxFormulaBytes + 1, limits, `${label} (decompressed)`);
    throw new InputFileError(`${label}: not a valid gzip file: ${(err as Error).message}`, { cause: err });
  }
}

/** Reads and parses a DIMACS CNF file (see the module note). */
export async function loadCnf(path: string, limits: SizeLimits): Promise<Cnf> {
  return readDimacs(await readCnfBytes(path, limits), path === "-" ? "<stdin>" : path);
}
