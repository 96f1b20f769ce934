/**
 * Encoding speed at Eternity II size: e2_pieces.txt with the five hints of e2_hints.txt, encoded and written
 * as DIMACS to a temporary file, in a fresh child process per measurement so that its peak RSS
 * (process.resourceUsage().maxRSS, which includes Node and the tsx loader) belongs to that encoding alone.
 */

import { spawnSync } from "node:child_process";
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, statSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";

import { dimacsChunks, encode } from "../../core/encode/index.js";
import { parseE2Hints, parsePuzzle, withHints } from "../../core/formats/index.js";
import { parseLabel } from "./encoding-run.js";

/** One E2 measurement. */
export interface E2Measurement {
  readonly encoding: string;
  readonly vars: number;
  readonly clauses: number;
  readonly encodeSec: number;
  readonly writeSec: number;
  readonly totalSec: number;
  readonly dimacsBytes: number;
  /** Peak RSS of the whole child process, bytes. */
  readonly peakRssBytes: number;
  /** RSS after loading the modules and the puzzle, before encoding, bytes. */
  readonly baseRssBytes: number;
}

const FIXTURES = fileURLToPath(new URL("../../test/fixtures/eternity2/", import.meta.url));

/** Runs in the child: measures one encoding label (see parseLabel) and returns the figures. */
export function measureE2InProcess(label: string): E2Measurement {
  const { encoding, options } = parseLabel(label);
  const pieces = parsePuzzle(readFileSync(join(FIXTURES, "e2_pieces.txt"), "utf8"), "e2_pieces.txt");
  const puzzle = withHints(pieces, parseE2Hints(readFileSync(join(FIXTURES, "e2_hints.txt"), "utf8"), "e2_hints.txt", pieces));
  const baseRssBytes = process.memoryUsage().rss;
  const dir = mkdtempSync(join(tmpdir(), "cubist-e2-"));
  try {
    const file = join(dir, "e2.cnf");
    const t0 = performance.now();
    const formula = encode(encoding, puzzle, options);
    const t1 = performance.now();
    const fd = openSync(file, "w");
    for (const chunk of dimacsChunks(formula)) writeSync(fd, chunk);
    closeSync(fd);
    const t2 = performance.now();
    return {
      encoding: label,
      vars: formula.numVars,
      clauses: formula.clauses.count,
      encodeSec: (t1 - t0) / 1000,
      writeSec: (t2 - t1) / 1000,
      totalSec: (t2 - t0) / 1000,
      dimacsBytes: statSync(file).size,
      peakRssBytes: process.resourceUsage().maxRSS * 1024,
      baseRssBytes,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Measures `encoding` in a fresh child process (`script --e2-child encoding`). */
export function measureE2(script: string, encoding: string): E2Measurement {
  const run = spawnSync(process.execPath, ["--import", "tsx", script, "--e2-child", encoding], { encoding: "utf8", maxBuffer: 1 << 20 });
  if (run.status !== 0) throw new Error(`E2 measurement of ${encoding} failed (exit ${run.status}): ${run.stderr}`);
  return JSON.parse(run.stdout.trim().split("\n").pop()!) as E2Measurement;
}

/** The E2 figures as a markdown table. */
export function e2Table(rows: readonly E2Measurement[]): string {
  const mb = (b: number): string => (b / 1e6).toFixed(0);
  const lines = [
    "| encoding | variables | clauses | encode s | write s | total s | DIMACS MB | peak RSS MB (process) | RSS before encoding MB |",
    "|---|---|---|---|---|---|---|---|---|",
  ];
  for (const r of rows) {
    lines.push(`| ${r.encoding} | ${r.vars.toLocaleString("en")} | ${r.clauses.toLocaleString("en")} | ${r.encodeSec.toFixed(2)} | ${r.writeSec.toFixed(2)} | ` +
      `${r.totalSec.toFixed(2)} | ${mb(r.dimacsBytes)} | ${mb(r.peakRssBytes)} | ${mb(r.baseRssBytes)} |`);
  }
  return lines.join("\n");
}
