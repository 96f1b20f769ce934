/**
 * The expected search tree of a scan order, from a first-moment model (issue 24, Brendan 8x8 heavy tail): no engine
 * run, a few milliseconds per order, so it can rank orders that would take hours to search. After the first d cells
 * of an order, the expected number of partial boards is the number of ways to put distinct pieces of the right kind
 * (corner, edge, inner) on those cells, in every rotation that fits the rim, times the chance that every join between
 * them matches: a join along the frame matches with the chance that two border sides drawn from the puzzle's border
 * sides show one colour, any other join with that chance for inner sides. The corner piece `--symmetry` pins counts
 * once. The sum over d is the expected number of placements of a complete search (the peek's dead ends included).
 *
 * Checked against Knuth's estimates of the engine's trees (bench/results/tail-8x8-2026-11-27.txt): the row scan's
 * tree within 2-6x (8x8 3.6e12 against 0.66-1.7e12 per seed, 7x7 1.0e11 against 6e10) and the diagonal wavefront's
 * ratio to it (93x against about 86x); orders that lay the frame first it underestimates by 10-40x (spiral on 8x8 38x
 * against 500-1400x, on 7x7 0.68x against 25x), because it treats the frame's joins as independent. So it ranks
 * row-like orders, and its finding that no single-cell move lowers the row scan's sum holds within the model only.
 * Besides the named orders it tries `--moves` random single-cell moves from the row scan and keeps those that help.
 *
 *   node --import tsx bench/order-model.ts [--boards 08x08,07x07,14x05] [--moves 20000] [--seed 1]
 */

import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { readBrendan } from "../core/formats/index.js";
import type { Puzzle } from "../core/puzzle.js";
import { printScriptHelp } from "./lib/script-help.js";

const { values } = parseArgs({
  options: {
    boards: { type: "string", default: "08x08,07x07,08x07,09x07,14x05" },
    moves: { type: "string", default: "20000" },
    seed: { type: "string", default: "1" },
    help: { type: "boolean", default: false },
  },
});
if (values.help) printScriptHelp(import.meta.url);

type Cell = readonly [number, number];

interface Model {
  rows: number;
  cols: number;
  count: [number, number, number]; /* pieces by kind: inner, edge, corner */
  joinBorder: number;
  joinInner: number;
}

/** The chance that two sides drawn from these colour counts match. */
function matchChance(counts: Map<number, number>): number {
  const all = [...counts.values()].reduce((a, b) => a + b, 0);
  return [...counts.values()].reduce((s, n) => s + (n / all) ** 2, 0);
}

function buildModel(p: Puzzle): Model {
  const border = new Map<number, number>(), inner = new Map<number, number>();
  const add = (m: Map<number, number>, c: number) => m.set(c, (m.get(c) ?? 0) + 1);
  const count: [number, number, number] = [0, 0, 0];
  for (const { edges } of p.pieces) {
    const grey = edges.filter((c) => c === 0).length;
    count[grey === 0 ? 0 : grey === 1 ? 1 : 2]++;
    edges.forEach((c, d) => {
      if (c === 0) return;
      /* an edge piece's side opposite its grey side faces the inner board; its other sides and a corner's run along the frame */
      const facesIn = grey === 0 || (grey === 1 && edges[(d + 2) % 4] === 0);
      add(facesIn ? inner : border, c);
    });
  }
  return { rows: p.rows, cols: p.cols, count, joinBorder: matchChance(border), joinInner: matchChance(inner) };
}

const kindOf = (m: Model, [r, c]: Cell) => (r === 0 || r === m.rows - 1 ? 1 : 0) + (c === 0 || c === m.cols - 1 ? 1 : 0);
const onFrameLine = (m: Model, a: Cell, b: Cell) =>
  (a[0] === b[0] && (a[0] === 0 || a[0] === m.rows - 1)) || (a[1] === b[1] && (a[1] === 0 || a[1] === m.cols - 1));

/** The expected placements of a complete search in this order (the sum over prefixes of the expected partial boards). */
function expectedNodes(m: Model, order: readonly Cell[]): number {
  const placed = new Set<number>(), used = [0, 0, 0];
  let log = 0, sum = 0;
  for (const cell of order) {
    const k = kindOf(m, cell);
    const left = k === 2 ? (used[2] === 0 ? 1 : m.count[2] - used[2]) : m.count[k] - used[k]; /* the pinned corner comes first */
    log += Math.log(Math.max(left, 1e-9) * (k === 0 ? 4 : 1));
    used[k]++;
    for (const [dr, dc] of [[-1, 0], [1, 0], [0, -1], [0, 1]]) {
      const y: Cell = [cell[0] + dr, cell[1] + dc];
      if (y[0] < 0 || y[0] >= m.rows || y[1] < 0 || y[1] >= m.cols || !placed.has(y[0] * m.cols + y[1])) continue;
      log += Math.log(kindOf(m, cell) > 0 && kindOf(m, y) > 0 && onFrameLine(m, cell, y) ? m.joinBorder : m.joinInner);
    }
    placed.add(cell[0] * m.cols + cell[1]);
    sum += Math.exp(log);
  }
  return sum;
}

function namedOrders(m: Model): Map<string, Cell[]> {
  const R = m.rows, C = m.cols, cells: Cell[] = [];
  for (let r = 0; r < R; r++) for (let c = 0; c < C; c++) cells.push([r, c]);
  const short = R >= C ? cells : [...cells].sort((a, b) => a[1] - b[1] || a[0] - b[0]);
  const ring: Cell[] = [];
  for (let c = 0; c < C; c++) ring.push([0, c]);
  for (let r = 1; r < R; r++) ring.push([r, C - 1]);
  for (let c = C - 2; c >= 0; c--) ring.push([R - 1, c]);
  for (let r = R - 2; r >= 1; r--) ring.push([r, 0]);
  const isRing = (x: Cell) => kindOf(m, x) > 0;
  const spiral: Cell[] = [];
  for (let t = 0, b = R - 1, l = 0, rt = C - 1; t <= b && l <= rt; t++, b--, l++, rt--) {
    for (let c = l; c <= rt; c++) spiral.push([t, c]);
    for (let r = t + 1; r <= b; r++) spiral.push([r, rt]);
    if (t < b) for (let c = rt - 1; c >= l; c--) spiral.push([b, c]);
    if (l < rt) for (let r = b - 1; r > t; r--) spiral.push([r, l]);
  }
  return new Map<string, Cell[]>([
    ["short (row scan along the short side)", short],
    ["long (row scan along the long side)", R >= C ? [...cells].sort((a, b) => a[1] - b[1] || a[0] - b[0]) : cells],
    ["snake (short, every other line reversed)", short.map(([r, c]) => (R >= C ? (r % 2 ? [r, C - 1 - c] : [r, c]) : (c % 2 ? [R - 1 - r, c] : [r, c])) as Cell)],
    ["diagonal wavefront", [...cells].sort((a, b) => a[0] + a[1] - b[0] - b[1] || a[0] - b[0])],
    ["spiral", spiral],
    ["frame first, then rows", [...ring, ...short.filter((x) => !isRing(x))]],
    ["inner first, then the frame", [...short.filter((x) => !isRing(x)), ...ring]],
  ]);
}

/** Random single-cell moves from `start`, keeping those that lower the expected placements. */
function improve(m: Model, start: Cell[], moves: number, seed: number): { order: Cell[]; nodes: number; kept: number } {
  let s = seed >>> 0 || 1;
  const rand = (n: number) => ((s = (s * 1103515245 + 12345) >>> 0) >>> 8) % n;
  let order = start, nodes = expectedNodes(m, start), kept = 0;
  for (let i = 0; i < moves; i++) {
    const from = 1 + rand(order.length - 1), to = 1 + rand(order.length - 1);
    if (from === to) continue;
    const next = [...order];
    next.splice(to, 0, ...next.splice(from, 1));
    const v = expectedNodes(m, next);
    if (v < nodes * (1 - 1e-9)) { order = next; nodes = v; kept++; }
  }
  return { order, nodes, kept };
}

for (const board of values.boards!.split(",")) {
  const file = `bench/puzzles/brendan/pieces_${board}.txt`;
  const m = buildModel(readBrendan(readFileSync(file, "utf8"), file));
  process.stdout.write(`\n${file}: ${m.count[2]} corners, ${m.count[1]} edges, ${m.count[0]} inner; join chance along the frame ${m.joinBorder.toFixed(4)}, inner ${m.joinInner.toFixed(4)}\n`);
  process.stdout.write("| order | expected placements | / short |\n|---|---|---|\n");
  const orders = namedOrders(m);
  const base = expectedNodes(m, orders.values().next().value!);
  for (const [name, order] of orders) {
    const v = expectedNodes(m, order);
    process.stdout.write(`| ${name} | ${v.toExponential(3)} | ${(v / base).toFixed(3)} |\n`);
  }
  const best = improve(m, orders.values().next().value!, Number(values.moves), Number(values.seed));
  process.stdout.write(`| short + ${values.moves} random moves (${best.kept} kept) | ${best.nodes.toExponential(3)} | ${(best.nodes / base).toFixed(3)} |\n`);
}
