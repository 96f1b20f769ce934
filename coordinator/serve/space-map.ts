/**
 * A map of a run's search space for the dashboard: the cube tree laid out in tree order (cube "3" before "3.0",
 * "3.1", ..., then what the re-split of "3" refuted, then "4"), each cube taking a share of the line equal to its
 * weight, and the line folded onto a square grid along a Hilbert curve so that neighbouring cubes stay together.
 * Each grid cell is one 1/(side*side) of the search space, coloured by what covers it: a cell holding a sat cube
 * shows it, then running, then failed; otherwise the state with most weight in the cell wins. Branches the
 * splitter refuted (their weight is known, their place is not) sit after their siblings. Once a run has ended,
 * its open cubes are "purged": removed from the queue, never searched.
 *
 * Pure: a function of the cube entries and which cubes are running.
 */

import type { CubeEntry } from "../model/cube-entry.js";

/** One letter per cell state. */
export const MAP_CODES = {
  unsat: "u",
  refuted: "r",
  sat: "s",
  running: "R",
  queued: "q",
  unknown: "k",
  failed: "f",
  purged: "p",
  empty: ".",
} as const;

export type MapState = keyof typeof MAP_CODES;

export interface SpaceMap {
  /** Cells per side; `cells.length === side * side`, row-major. */
  readonly side: number;
  /** One MAP_CODES letter per cell, row-major from the top-left. */
  readonly cells: string;
  /** Weight of the whole space by state (sums to 1 up to rounding). */
  readonly weights: Record<Exclude<MapState, "empty">, number>;
}

/** Position d along the Hilbert curve of an n x n grid (n a power of two) -> [x, y]. */
export function hilbertPoint(n: number, d: number): [number, number] {
  let x = 0;
  let y = 0;
  let t = d;
  for (let s = 1; s < n; s *= 2) {
    const rx = 1 & (t >> 1);
    const ry = 1 & (t ^ rx);
    if (ry === 0) {
      if (rx === 1) {
        x = s - 1 - x;
        y = s - 1 - y;
      }
      [x, y] = [y, x];
    }
    x += s * rx;
    y += s * ry;
    t >>= 2;
  }
  return [x, y];
}

function compareIds(a: string, b: string): number {
  const pa = a.split(".");
  const pb = b.split(".");
  for (let i = 0; i < Math.min(pa.length, pb.length); i++) {
    const d = Number(pa[i]) - Number(pb[i]);
    if (d !== 0) return d;
  }
  return pa.length - pb.length;
}

function parentOf(id: string): string {
  const i = id.lastIndexOf(".");
  return i < 0 ? "" : id.slice(0, i);
}

/** Segments of the unit line in tree order: [weight, state]. */
export function spaceSegments(entries: Iterable<CubeEntry>, isRunning: (id: string) => boolean, ended = false): Array<[number, MapState]> {
  const children = new Map<string, CubeEntry[]>();
  for (const e of entries) {
    const p = parentOf(e.id);
    let list = children.get(p);
    if (!list) children.set(p, (list = []));
    list.push(e);
  }
  const out: Array<[number, MapState]> = [];
  const walk = (parent: string, weight: number): void => {
    const list = children.get(parent) ?? [];
    list.sort((a, b) => compareIds(a.id, b.id));
    let covered = 0;
    for (const e of list) {
      covered += e.weight;
      if (e.state === "resplit") {
        walk(e.id, e.weight);
        continue;
      }
      const state: MapState = e.state === "queued" ? (ended ? "purged" : isRunning(e.id) ? "running" : "queued") : e.state;
      out.push([e.weight, state]);
    }
    // Below a billionth of the parent it is rounding, not a refuted branch (one is at least 1/branching of it).
    const rest = weight - covered;
    if (rest > weight * 1e-9) out.push([rest, "refuted"]);
  };
  // A split that has not produced its cubes yet leaves the whole space unrecorded: it is not refuted.
  if (!children.has("")) return [[1, "queued"]];
  walk("", 1);
  return out;
}

const PRIORITY: MapState[] = ["sat", "running", "failed"];

/**
 * The map at `side` x `side` cells (side a power of two, 64 by default). `ended`: the run is over, so its open
 * cubes were purged (never searched) rather than queued.
 */
export function buildSpaceMap(entries: Iterable<CubeEntry>, isRunning: (id: string) => boolean, options: { side?: number; ended?: boolean } = {}): SpaceMap {
  const side = options.side ?? 64;
  if (side < 1 || (side & (side - 1)) !== 0) throw new RangeError(`side must be a power of two, got ${side}`);
  const n = side * side;
  const perCell: Array<Map<MapState, number>> = Array.from({ length: n }, () => new Map());
  const weights = { unsat: 0, refuted: 0, sat: 0, running: 0, queued: 0, unknown: 0, failed: 0, purged: 0 };
  let pos = 0;
  for (const [w, state] of spaceSegments(entries, isRunning, options.ended)) {
    if (state !== "empty") weights[state] += w;
    const start = Math.min(n - 1, Math.floor(pos * n));
    let a = pos * n;
    const b = Math.min(n, (pos + w) * n);
    pos += w;
    while (a < b - 1e-12) {
      const cell = Math.min(n - 1, Math.floor(a));
      const end = Math.min(b, cell + 1);
      const m = perCell[cell];
      m.set(state, (m.get(state) ?? 0) + (end - a));
      if (end <= a) break;
      a = end;
    }
    // However small, a sat, running or failed cube marks the cell it starts in.
    if (w > 0 && PRIORITY.includes(state)) perCell[start].set(state, (perCell[start].get(state) ?? 0) + 1e-12);
  }
  const grid: string[] = new Array(n).fill(MAP_CODES.empty);
  for (let d = 0; d < n; d++) {
    const m = perCell[d];
    let pick: MapState = "empty";
    const urgent = PRIORITY.find((s) => (m.get(s) ?? 0) > 0);
    if (urgent) {
      pick = urgent;
    } else {
      let best = 0;
      for (const [s, w] of m) if (w > best) [pick, best] = [s, w];
    }
    const [x, y] = hilbertPoint(side, d);
    grid[y * side + x] = MAP_CODES[pick];
  }
  return { side, cells: grid.join(""), weights };
}
