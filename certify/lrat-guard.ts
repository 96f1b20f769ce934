/**
 * What lrat-check (Debian's drat-trim package, 2023) does not check: that an empty clause is derived by unit
 * propagation. An empty clause whose hints propagate no conflict falls through to its RAT check, which has no pivot
 * and so passes: `N 0 0` after the formula "verifies" any formula, satisfiable ones too. Cubist's prover derives every
 * lemma by unit propagation, so this guard replays each empty clause of a proof exactly: every hint must be a clause
 * present at that point (the formula's, or a lemma added and not deleted before), unit or falsified under the
 * literals the hints before it set, and the last one falsified. The other lemmas are lrat-check's (their RAT check has
 * a pivot and holds). One pass over the proof, line by line without holding it (two for a proof of very many
 * lemma literals).
 */

import { open } from "node:fs/promises";

/**
 * Calls `onLine` with each line of the file (its bounds in `buf`, without the newline), reading into one buffer that
 * is reused (a proof can be gigabytes: no allocation, no copy per chunk); a line longer than the buffer grows it.
 */
async function eachLine(path: string, onLine: (buf: Buffer, start: number, end: number) => void): Promise<void> {
  const file = await open(path, "r");
  try {
    let buf = Buffer.allocUnsafe(1 << 22);
    let have = 0; // bytes of an unfinished line at the start of buf
    for (;;) {
      if (have === buf.length) buf = Buffer.concat([buf, Buffer.allocUnsafe(buf.length)]);
      const { bytesRead } = await file.read(buf, have, buf.length - have, null);
      if (bytesRead === 0) break;
      const view = buf.subarray(0, have + bytesRead);
      let start = 0;
      for (let nl = view.indexOf(10, have); nl >= 0; nl = view.indexOf(10, start)) {
        onLine(buf, start, nl);
        start = nl + 1;
      }
      have = view.length - start;
      buf.copyWithin(0, start, view.length);
    }
    if (have > 0) onLine(buf, 0, have);
  } finally {
    await file.close();
  }
}

/** The second field of a proof line: "0" for an empty clause, "d" for a deletion (latin1 bytes). */
function secondField(buf: Buffer, start: number, end: number): string {
  let i = start;
  while (i < end && buf[i] === 32) i++;
  while (i < end && buf[i] !== 32) i++;
  while (i < end && buf[i] === 32) i++;
  const j = i;
  while (i < end && buf[i] !== 32 && buf[i] !== 13) i++;
  return buf.toString("latin1", j, i);
}

/** The first field of a proof line as a number. */
function firstNumber(buf: Buffer, start: number, end: number): number {
  let i = start, v = 0;
  while (i < end && buf[i] === 32) i++;
  for (; i < end && buf[i]! >= 48 && buf[i]! <= 57; i++) v = v * 10 + buf[i]! - 48;
  return v;
}

/** The literals of a lemma line (its fields after the ID, up to the first 0), read without the hints after them. */
function lemmaLiterals(buf: Buffer, start: number, end: number): number[] {
  const lits: number[] = [];
  let i = start;
  while (i < end && buf[i] === 32) i++;
  while (i < end && buf[i] !== 32) i++; // the ID
  for (;;) {
    while (i < end && buf[i] === 32) i++;
    if (i >= end) return lits;
    const j = i;
    while (i < end && buf[i] !== 32) i++;
    const v = fieldNumber(buf, j, i);
    if (v === 0) return lits;
    lits.push(v);
  }
}

/**
 * The signed decimal in buf[start, end) (a proof field), parsed in place: a lemma line costs no string per literal.
 * Anything else is handed to Number as text, as before (NaN for a field that is no number).
 */
function fieldNumber(buf: Buffer, start: number, end: number): number {
  let i = start, neg = false, v = 0;
  if (buf[i] === 45) { neg = true; i++; }
  if (i === end || end - i > 15) return Number(buf.toString("latin1", start, end));
  for (; i < end; i++) {
    const d = buf[i]! - 48;
    if (d < 0 || d > 9) return Number(buf.toString("latin1", start, end));
    v = v * 10 + d;
  }
  return neg ? -v : v;
}

const ints = (s: string): number[] => s.trim().split(/\s+/).filter((t) => t !== "").map(Number);

interface EmptyStep {
  line: number;
  hints: number[];
}

interface Lemma {
  lits: number[];
  added: number;
  deleted: number;
}

/** Literals of the proof's lemmas kept in memory at most while it is read once; a proof with more is read twice. */
const ONE_PASS_LITERALS = 1 << 24;

/**
 * The empty clauses of a proof and its lemmas (where added, where deleted: the first addition of an ID counts).
 * `keep(id)` says which lemmas to keep; null when they would be more than `maxLiterals` literals.
 */
async function readProof(proofPath: string, keep: (id: number) => boolean, maxLiterals: number): Promise<{ steps: EmptyStep[]; lemma: Map<number, Lemma> } | null> {
  const steps: EmptyStep[] = [];
  const lemma = new Map<number, Lemma>();
  let n = 0, kept = 0;
  await eachLine(proofPath, (buf, start, end) => {
    n++;
    if (kept > maxLiterals) return;
    const second = secondField(buf, start, end);
    if (second === "d") {
      const text = buf.toString("latin1", start, end);
      for (const id of ints(text.slice(text.indexOf("d") + 1))) {
        const e = lemma.get(id);
        if (e && e.deleted === 0) e.deleted = n;
      }
      return;
    }
    if (second === "0") {
      const hints = ints(buf.toString("latin1", start, end)).slice(2);
      const stop = hints.indexOf(0);
      steps.push({ line: n, hints: stop < 0 ? hints : hints.slice(0, stop) });
    }
    const id = firstNumber(buf, start, end);
    if (!keep(id) || lemma.has(id)) return;
    const lits = lemmaLiterals(buf, start, end);
    kept += lits.length + 1;
    lemma.set(id, { lits, added: n, deleted: 0 });
  });
  return kept > maxLiterals ? null : { steps, lemma };
}

/**
 * The problem with the proof's empty clauses, or null when each one is derived by unit propagation from its hints.
 * The proof is read once, keeping every lemma's literals (they are short: the hints are not kept); a proof whose
 * lemmas hold more than `maxLiterals` literals is read twice instead, the empty clauses first, then the lemmas
 * they name.
 */
export async function checkEmptyClauses(cnfPath: string, proofPath: string, maxLiterals = ONE_PASS_LITERALS): Promise<string | null> {
  let read = await readProof(proofPath, () => true, maxLiterals);
  if (read === null) {
    // The empty clauses alone first (no lemma kept), then the lemmas they name.
    const { steps } = (await readProof(proofPath, () => false, Infinity))!;
    const named = new Set(steps.flatMap((s) => s.hints));
    read = (await readProof(proofPath, (id) => named.has(id), Infinity))!;
  }
  const { steps, lemma } = read;
  if (steps.length === 0) return "the proof has no empty clause";
  const needed = new Set(steps.flatMap((s) => s.hints));
  const formula = new Map<number, number[]>();
  let clause = 0;
  let current: number[] = [];
  await eachLine(cnfPath, (buf, start, end) => {
    const l = buf.toString("latin1", start, end);
    if (/^\s*[cp%]/.test(l)) return;
    for (const x of ints(l)) {
      if (x !== 0) { current.push(x); continue; }
      clause++;
      if (needed.has(clause)) formula.set(clause, current);
      current = [];
    }
  });
  for (const s of steps) {
    const why = replay(s, (id) => {
      const e = lemma.get(id);
      if (e) return e.added < s.line && (e.deleted === 0 || e.deleted > s.line) ? e.lits : null;
      return id >= 1 && id <= clause ? formula.get(id) ?? null : null;
    });
    if (why) return `empty clause on proof line ${s.line}: ${why}`;
  }
  return null;
}

/** Unit propagation along the hints of one empty clause; the problem, or null when the last hint is falsified. */
function replay(step: EmptyStep, clauseOf: (id: number) => number[] | null): string | null {
  const value = new Map<number, boolean>(); // variable -> value
  const holds = (lit: number): boolean | undefined => {
    const v = value.get(Math.abs(lit));
    return v === undefined ? undefined : v === lit > 0;
  };
  for (let i = 0; i < step.hints.length; i++) {
    const id = step.hints[i]!;
    const c = clauseOf(id);
    if (c === null) return `hint ${id} names no clause present there`;
    const open = c.filter((lit) => holds(lit) !== false);
    if (open.length === 0) return i === step.hints.length - 1 ? null : `hint ${id} is falsified before the last hint`;
    if (open.length > 1 || holds(open[0]!) === true) return `hint ${id} is not unit`;
    value.set(Math.abs(open[0]!), open[0]! > 0);
  }
  return "its hints propagate no conflict";
}
