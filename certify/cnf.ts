/**
 * The exact CNF files a certificate talks about, written from a base DIMACS file without holding it in memory:
 * - a cube's formula: the base clauses plus one unit clause per literal of the cube;
 * - the coverage formula: the base clauses plus, for every refuted cube, one clause of its negated literals.
 * Both get a corrected `p cnf` header; the base file's own header and comments are dropped.
 */

import { createReadStream, createWriteStream } from "node:fs";
import { pipeline } from "node:stream/promises";
import { Readable } from "node:stream";
import { readDimacsHeader } from "../host/formula-cache.js";

/** A base DIMACS file and what its header says. */
export interface BaseCnf {
  readonly path: string;
  readonly numVars: number;
  readonly numClauses: number;
  /** Byte offset just after the `p cnf` line. */
  readonly bodyOffset: number;
}

export async function openBaseCnf(path: string): Promise<BaseCnf> {
  return { path, ...(await readDimacsHeader(path)) };
}

async function* withClauses(base: BaseCnf, clauses: readonly (readonly number[])[]): AsyncGenerator<Uint8Array> {
  yield Buffer.from(`p cnf ${base.numVars} ${base.numClauses + clauses.length}\n`);
  for await (const chunk of createReadStream(base.path, { start: base.bodyOffset, highWaterMark: 1 << 20 })) yield chunk as Buffer;
  // The leading newline guards against a base file whose last clause lacks one.
  let text = "\n";
  for (const c of clauses) {
    text += `${c.join(" ")} 0\n`;
    if (text.length > 1 << 16) {
      yield Buffer.from(text);
      text = "";
    }
  }
  yield Buffer.from(text);
}

/** The base formula plus the given clauses, as chunks (for a file, or a bundle). */
export function cnfWithClauses(base: BaseCnf, clauses: readonly (readonly number[])[]): AsyncIterable<Uint8Array> {
  return withClauses(base, clauses);
}

async function writeChunks(out: string, chunks: AsyncIterable<Uint8Array>): Promise<void> {
  await pipeline(Readable.from(chunks), createWriteStream(out));
}

/** Writes the formula of one cube: base + `units` as unit clauses. */
export function writeCubeCnf(base: BaseCnf, units: readonly number[], out: string): Promise<void> {
  return writeChunks(out, withClauses(base, units.map((u) => [u])));
}

/** The clause that excludes a cube: the negation of each of its literals. */
export function negatedCube(units: readonly number[]): number[] {
  return units.map((u) => -u);
}

/** Writes the coverage formula: base + one negated-cube clause per refuted cube. */
export function writeCoverageCnf(base: BaseCnf, cubes: readonly (readonly number[])[], out: string): Promise<void> {
  return writeChunks(out, withClauses(base, cubes.map(negatedCube)));
}
