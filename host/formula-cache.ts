/**
 * The on-disk cache of base formulas (a worker's, and the coordinator's certifier's). A run's DIMACS travels once,
 * through the JetStream Object Store (object name = its SHA-256; the source: cluster/formula-source.ts), and is
 * kept at <dir>/<sha256>.cnf. Every download is hashed and checked against its name before it is used: nobody
 * trusts what it receives. Concurrent requests for one formula share one download. A missing object, bytes that do
 * not match the name, or a file that is not DIMACS is a FormulaUnavailableError: the task's fault, not the machine's.
 *
 * A cube's formula is the cached base with the cube's units appended; `cubeInput` streams it to the solver
 * with a corrected `p cnf` header, without copying the base file.
 */

import { CubistError } from "../core/errors.js";
import { isSha256Hex } from "../core/sha256.js";
import { createHash } from "node:crypto";
import { createReadStream, createWriteStream } from "node:fs";
import { mkdir, open, rename, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import { pipeline } from "node:stream/promises";
import { Readable, Transform } from "node:stream";

/** Where a cached formula's clauses start and what its header says. */
export interface CachedFormula {
  readonly sha256: string;
  readonly path: string;
  readonly numVars: number;
  readonly numClauses: number;
  /** Byte offset just after the `p cnf` line. */
  readonly bodyOffset: number;
  readonly bytes: number;
}

/** Something that yields a formula's bytes by name (the Object Store in production). */
export interface FormulaSource {
  /** A stream of the object's bytes, or null when there is no such object. */
  open(name: string): Promise<ReadableStream<Uint8Array> | AsyncIterable<Uint8Array> | null>;
}

/** A formula that is not in the store, or whose bytes do not match its name or are not DIMACS: the task's fault. */
export class FormulaUnavailableError extends CubistError {
  override readonly name = "FormulaUnavailableError";
  override readonly fault = "task";
}


/** Reads the DIMACS header of a file: skips comments, parses `p cnf V C`, returns where the body starts. */
export async function readDimacsHeader(path: string): Promise<{ numVars: number; numClauses: number; bodyOffset: number }> {
  const fh = await open(path, "r");
  try {
    const buf = Buffer.alloc(1 << 16);
    let offset = 0;
    let carry = "";
    for (;;) {
      const { bytesRead } = await fh.read(buf, 0, buf.length, offset);
      if (bytesRead === 0) break;
      const text = carry + buf.subarray(0, bytesRead).toString("latin1");
      let lineStart = 0;
      for (;;) {
        const nl = text.indexOf("\n", lineStart);
        if (nl < 0) break;
        const line = text.slice(lineStart, nl).trim();
        if (line.startsWith("p ")) {
          const m = /^p\s+cnf\s+(\d+)\s+(\d+)$/.exec(line);
          if (!m) throw new FormulaUnavailableError(`${path}: bad DIMACS header "${line.slice(0, 60)}"`);
          const bodyOffset = offset - carry.length + Buffer.byteLength(text.slice(0, nl + 1), "latin1");
          return { numVars: Number(m[1]), numClauses: Number(m[2]), bodyOffset };
        }
        if (line !== "" && !line.startsWith("c")) {
          throw new FormulaUnavailableError(`${path}: clause before the DIMACS header`);
        }
        lineStart = nl + 1;
      }
      carry = text.slice(lineStart);
      offset += bytesRead;
      if (carry.length > 1 << 20) throw new FormulaUnavailableError(`${path}: header line too long`);
    }
    throw new FormulaUnavailableError(`${path}: no DIMACS header`);
  } finally {
    await fh.close();
  }
}

export class FormulaCache {
  private readonly pending = new Map<string, Promise<CachedFormula>>();
  private readonly ready = new Map<string, CachedFormula>();

  constructor(
    private readonly dir: string,
    private readonly source: FormulaSource,
  ) {}

  /** The cached formula with this hash, downloading it if needed. */
  get(sha256: string): Promise<CachedFormula> {
    if (!isSha256Hex(sha256)) return Promise.reject(new FormulaUnavailableError(`not a SHA-256 name: "${sha256.slice(0, 80)}"`));
    const hit = this.ready.get(sha256);
    if (hit) return Promise.resolve(hit);
    let p = this.pending.get(sha256);
    if (!p) {
      p = this.load(sha256).finally(() => this.pending.delete(sha256));
      this.pending.set(sha256, p);
    }
    return p;
  }

  /** Forgets a formula (its file went missing or unreadable): the next `get` looks at the disk again. */
  forget(sha256: string): void {
    this.ready.delete(sha256);
  }

  private async load(sha256: string): Promise<CachedFormula> {
    await mkdir(this.dir, { recursive: true });
    const path = join(this.dir, `${sha256}.cnf`);
    const existing = await stat(path).catch(() => null);
    if (!existing) await this.download(sha256, path);
    const header = await readDimacsHeader(path);
    const bytes = (await stat(path)).size;
    const entry: CachedFormula = { sha256, path, bytes, ...header };
    this.ready.set(sha256, entry);
    return entry;
  }

  private async download(sha256: string, path: string): Promise<void> {
    const stream = await this.source.open(sha256);
    if (!stream) throw new FormulaUnavailableError(`formula ${sha256} is not in the object store`);
    const tmp = `${path}.${process.pid}.${Date.now()}.part`;
    const hash = createHash("sha256");
    const hasher = new Transform({
      transform(chunk: Buffer, _enc, cb) {
        hash.update(chunk);
        cb(null, chunk);
      },
    });
    const readable = Symbol.asyncIterator in stream
      ? Readable.from(stream as AsyncIterable<Uint8Array>)
      : Readable.fromWeb(stream as import("node:stream/web").ReadableStream<Uint8Array>);
    try {
      await pipeline(readable, hasher, createWriteStream(tmp));
      const got = hash.digest("hex");
      if (got !== sha256) throw new FormulaUnavailableError(`formula ${sha256}: downloaded bytes hash to ${got}; refusing it`);
      await rename(tmp, path);
    } catch (err) {
      await rm(tmp, { force: true });
      throw err;
    }
  }
}

function unitsText(units: readonly number[]): string {
  let s = "";
  for (const u of units) s += `${u} 0\n`;
  return s;
}

/** The cube's formula: a corrected header, the cached clauses (streamed from disk), then one unit clause per literal. */
export async function* cubeInput(formula: CachedFormula, units: readonly number[]): AsyncGenerator<Uint8Array> {
  yield Buffer.from(`p cnf ${formula.numVars} ${formula.numClauses + units.length}\n`);
  for await (const chunk of createReadStream(formula.path, { start: formula.bodyOffset, highWaterMark: 1 << 20 })) {
    yield chunk as Buffer;
  }
  // The leading newline guards against a base file whose last clause lacks one.
  if (units.length > 0) yield Buffer.from("\n" + unitsText(units));
}
