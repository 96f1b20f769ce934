/**
 * What lrat-check (Debian's drat-trim package, 2023) does not check: that an empty clause is derived by unit
 * propagation. An empty clause whose hints propagate no conflict falls through to its RAT check, which has no pivot
 * and so passes: `N 0 0` after the formula "verifies" any formula, satisfiable ones too. Cubist's prover derives every
 * lemma by unit propagation, so this guard replays each empty clause of a proof exactly: every hint must be a clause
 * present at that point (the formula's, or a lemma added and not deleted before), unit or falsified under the
 * literals the hints before it set, and the last one falsified. The other lemmas are lrat-check's (their RAT check has
 * a pivot and holds). Two passes over the proof, each reading it line by line without holding it.
 */

import { createReadStream } from "node:fs";

/**
 * The lines of a file, one at a time, as a buffer and the line's bounds in it (without the newline): a proof can be
 * gigabytes, and most lines are only looked at for their first bytes.
 */
async function* lines(path: string): AsyncGenerator<[Buffer, number, number]> {
  let carry: Buffer = Buffer.alloc(0);
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 22 })) {
    const buf = carry.length > 0 ? Buffer.concat([carry, chunk as Buffer]) : (chunk as Buffer);
    let start = 0;
    for (let nl = buf.indexOf(10, start); nl >= 0; nl = buf.indexOf(10, start)) {
      yield [buf, start, nl];
      start = nl + 1;
    }
    carry = buf.subarray(start);
  }
  if (carry.length > 0) yield [carry, 0, carry.length];
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

const ints = (s: string): number[] => s.trim().split(/\s+/).filter((t) => t !== "").map(Number);

interface EmptyStep {
  line: number;
  hints: number[];
}

/** The problem with the proof's empty clauses, or null when each one is derived by unit propagation from its hints. */
export async function checkEmptyClauses(cnfPath: string, proofPath: string): Promise<string | null> {
  // Pass 1: the empty clauses and the clauses their hints name.
  const steps: EmptyStep[] = [];
  let n = 0;
  for await (const [buf, start, end] of lines(proofPath)) {
    n++;
    if (secondField(buf, start, end) !== "0") continue;
    const hints = ints(buf.toString("latin1", start, end)).slice(2);
    const stop = hints.indexOf(0);
    steps.push({ line: n, hints: stop < 0 ? hints : hints.slice(0, stop) });
  }
  if (steps.length === 0) return "the proof has no empty clause";
  const needed = new Set(steps.flatMap((s) => s.hints));
  // Pass 2: the named lemmas (where added, where deleted), then the named formula clauses.
  const lemma = new Map<number, { lits: number[]; added: number; deleted: number }>();
  n = 0;
  for await (const [buf, start, end] of lines(proofPath)) {
    n++;
    if (secondField(buf, start, end) === "d") {
      const text = buf.toString("latin1", start, end);
      for (const id of ints(text.slice(text.indexOf("d") + 1))) {
        const e = lemma.get(id);
        if (e && e.deleted === 0) e.deleted = n;
      }
      continue;
    }
    const id = firstNumber(buf, start, end);
    if (!needed.has(id) || lemma.has(id)) continue;
    const all = ints(buf.toString("latin1", start, end));
    const stop = all.indexOf(0, 1);
    lemma.set(id, { lits: all.slice(1, stop < 0 ? all.length : stop), added: n, deleted: 0 });
  }
  const formula = new Map<number, number[]>();
  let clause = 0;
  let current: number[] = [];
  for await (const [buf, start, end] of lines(cnfPath)) {
    const l = buf.toString("latin1", start, end);
    if (/^\s*[cp%]/.test(l)) continue;
    for (const x of ints(l)) {
      if (x !== 0) { current.push(x); continue; }
      clause++;
      if (needed.has(clause)) formula.set(clause, current);
      current = [];
    }
  }
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
