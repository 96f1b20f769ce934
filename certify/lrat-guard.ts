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

/** The lines of a file, one at a time (text without the newline). */
async function* lines(path: string): AsyncGenerator<string> {
  let carry = "";
  for await (const chunk of createReadStream(path, { encoding: "latin1", highWaterMark: 1 << 20 })) {
    const text = carry + (chunk as string);
    let start = 0;
    for (let nl = text.indexOf("\n", start); nl >= 0; nl = text.indexOf("\n", start)) {
      yield text.slice(start, nl);
      start = nl + 1;
    }
    carry = text.slice(start);
  }
  if (carry.length > 0) yield carry;
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
  for await (const l of lines(proofPath)) {
    n++;
    const m = /^\s*\d+\s+0\s+(.*)$/.exec(l);
    if (!m) continue;
    const hints = ints(m[1]!);
    const end = hints.indexOf(0);
    steps.push({ line: n, hints: end < 0 ? hints : hints.slice(0, end) });
  }
  if (steps.length === 0) return "the proof has no empty clause";
  const needed = new Set(steps.flatMap((s) => s.hints));
  // Pass 2: the named lemmas (where added, where deleted), then the named formula clauses.
  const lemma = new Map<number, { lits: number[]; added: number; deleted: number }>();
  n = 0;
  for await (const l of lines(proofPath)) {
    n++;
    const t = l.trim();
    if (t === "") continue;
    const d = /^\d+\s+d\s+(.*)$/.exec(t);
    if (d) {
      for (const id of ints(d[1]!)) {
        const e = lemma.get(id);
        if (e && e.deleted === 0) e.deleted = n;
      }
      continue;
    }
    const id = Number(t.slice(0, t.search(/\s|$/)));
    if (!needed.has(id) || lemma.has(id)) continue;
    const all = ints(t);
    const end = all.indexOf(0, 1);
    lemma.set(id, { lits: all.slice(1, end < 0 ? all.length : end), added: n, deleted: 0 });
  }
  const formula = new Map<number, number[]>();
  let clause = 0;
  let current: number[] = [];
  for await (const l of lines(cnfPath)) {
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
