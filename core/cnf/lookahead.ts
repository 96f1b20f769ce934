/**
 * The lookahead cuber, in the spirit of march_cu: the formula is split into cubes (conjunctions of literals) by a
 * binary tree of decisions. At each node the free variables that occur most in the clauses not yet satisfied
 * (short clauses weigh more) are looked ahead: each literal of such a variable is assigned and propagated, and the
 * number of assignments it implies is its score; the node branches on the variable whose two literals together
 * imply the most (the product of the two counts, as march does). A literal whose propagation conflicts is a failed
 * literal: its negation holds in the whole subtree and is asserted at the node, and the lookahead starts again.
 * A branch stops at `maxDepth` decisions, when at most `minFreeVars` variables are left free, or when every clause
 * is satisfied; a node where propagation conflicts is refuted.
 *
 * The leaves, open (`cubes`) and refuted (`refuted`), are the decision literals on their path: together they cover
 * every assignment (checkCoverage), so the formula is unsatisfiable exactly when it is unsatisfiable under every
 * open cube. An open cube's decisions are all it needs: the failed literals and propagations below it follow from
 * the formula and the cube.
 */

import type { Cnf } from "./cnf.js";
import { Propagator } from "./propagate.js";

/** How deep to cube. */
export interface LookaheadOptions {
  /** Most decisions on a branch (a cube has at most this many literals). @default 8 */
  readonly maxDepth?: number;
  /** A branch stops when this many variables or fewer are free. @default 0 */
  readonly minFreeVars?: number;
  /** Variables looked ahead at a node: the most occurring free ones. @default 64 */
  readonly candidates?: number;
  /**
   * Cube below these literals (a stuck cube's re-split): they are assigned first, and the leaves' paths are the
   * decisions below them (the caller prefixes the literals). When they conflict, the one leaf [] is refuted.
   */
  readonly under?: readonly number[];
  /** Called for each failed literal with the decisions of its node: the formula has no model under both. */
  readonly onFailedLiteral?: (path: readonly number[], literal: number) => void;
}

/** The cube tree's leaves and what the lookahead learned on the way. */
export interface CubeSplit {
  /** The open leaves: the decision literals of each, to be solved. */
  readonly cubes: number[][];
  /** Leaves refuted by propagation and failed literals: the formula has no model under them. */
  readonly refuted: number[][];
  /** Failed literals found (each asserted negated in its subtree). */
  readonly failedLiterals: number;
  /** Nodes of the tree (inner and leaves). */
  readonly nodes: number;
}

const DEFAULTS = { maxDepth: 8, minFreeVars: 0, candidates: 64 };

interface Search {
  readonly p: Propagator;
  readonly options: typeof DEFAULTS & LookaheadOptions;
  readonly cubes: number[][];
  readonly refuted: number[][];
  failed: number;
  nodes: number;
}

/** Splits `cnf` into cubes by lookahead (see the module note). */
export function splitByLookahead(cnf: Cnf, options: LookaheadOptions = {}): CubeSplit {
  const o = { ...DEFAULTS, ...options };
  if (!(Number.isInteger(o.maxDepth) && o.maxDepth >= 0 && o.maxDepth <= 30)) throw new RangeError(`maxDepth must be an integer in 0..30, got ${o.maxDepth}`);
  if (!(Number.isInteger(o.candidates) && o.candidates >= 1)) throw new RangeError(`candidates must be a positive integer, got ${o.candidates}`);
  const p = new Propagator(cnf);
  const s: Search = { p, options: o, cubes: [], refuted: [], failed: 0, nodes: 0 };
  const refutedAtRoot = p.refutedAtRoot || !assumeAll(p, o.under ?? []);
  if (refutedAtRoot) s.refuted.push([]);
  else cubeNode(s, []);
  return { cubes: s.cubes, refuted: s.refuted, failedLiterals: s.failed, nodes: s.nodes + (refutedAtRoot ? 1 : 0) };
}

/** Assigns and propagates `lits`; false on a conflict. */
function assumeAll(p: Propagator, lits: readonly number[]): boolean {
  for (const l of lits) if (!(p.assign(l) && p.propagate())) return false;
  return true;
}

/** Cubes the subtree under `path` (the propagator holds the node's assignment, propagated without conflict). */
function cubeNode(s: Search, path: number[]): void {
  s.nodes++;
  const p = s.p;
  const free = p.cnf.numVars - p.assigned;
  if (path.length >= s.options.maxDepth || free <= s.options.minFreeVars) {
    s.cubes.push(path);
    return;
  }
  const branch = chooseBranch(s, path);
  if (branch === "refuted") {
    s.refuted.push(path);
    return;
  }
  if (branch === null) {
    s.cubes.push(path);
    return;
  }
  for (const lit of [branch, -branch]) {
    const mark = p.assigned;
    const child = [...path, lit];
    if (p.assign(lit) && p.propagate()) cubeNode(s, child);
    else {
      s.nodes++;
      s.refuted.push(child);
    }
    p.backtrack(mark);
  }
}

/**
 * The variable to branch on (its positive literal first), null when no clause is left unsatisfied, or "refuted"
 * when failed literals refute the node. Failed literals found stay asserted in the propagator (the caller's
 * backtrack removes them with the node).
 */
function chooseBranch(s: Search, path: readonly number[]): number | "refuted" | null {
  const p = s.p;
  for (;;) {
    const candidates = preselect(p, s.options.candidates);
    if (candidates.length === 0) return null;
    let best = 0;
    let bestScore = -1;
    let failedOne = false;
    for (const v of candidates) {
      const pos = probe(p, v);
      const neg = pos === null ? 0 : probe(p, -v);
      const failed = pos === null ? v : neg === null ? -v : 0;
      if (failed !== 0) {
        s.failed++;
        s.options.onFailedLiteral?.(path, failed);
        if (!(p.assign(-failed) && p.propagate())) return "refuted";
        failedOne = true;
        break;
      }
      const score = pos! * neg! + pos! + neg!;
      if (score > bestScore) {
        bestScore = score;
        best = v;
      }
    }
    if (!failedOne) return best;
  }
}

/** How many assignments `lit` implies (itself included), or null when its propagation conflicts. */
function probe(p: Propagator, lit: number): number | null {
  const mark = p.assigned;
  const ok = p.assign(lit) && p.propagate();
  const implied = p.assigned - mark;
  p.backtrack(mark);
  return ok ? implied : null;
}

/** The free variables that weigh most in the unsatisfied clauses (a clause of k free literals weighs 2^-k to each). */
function preselect(p: Propagator, count: number): number[] {
  const weight = new Float64Array(p.cnf.numVars + 1);
  const value = p.value;
  const clauses = p.clauses;
  // Called at every node on every clause: the literal values are read inline (value[var], sign applied).
  for (let ci = 0; ci < clauses.length; ci++) {
    const c = clauses[ci];
    let free = 0;
    let satisfied = false;
    for (let k = 0; k < c.length; k++) {
      const l = c[k];
      const v = l > 0 ? value[l] : -value[-l];
      if (v === 1) {
        satisfied = true;
        break;
      }
      if (v === 0) free++;
    }
    if (satisfied || free === 0) continue;
    const w = 1 / (1 << Math.min(free, 30));
    for (let k = 0; k < c.length; k++) {
      const x = c[k] > 0 ? c[k] : -c[k];
      if (value[x] === 0) weight[x] += w;
    }
  }
  const vars: number[] = [];
  for (let v = 1; v <= p.cnf.numVars; v++) if (weight[v] > 0) vars.push(v);
  vars.sort((a, b) => weight[b] - weight[a] || a - b);
  return vars.slice(0, count);
}
