/**
 * How much the search tree of a square board depends on where the scan starts (issue 10, Brendan 8x8): the engine's
 * `--symmetry` pins at the top-left the first corner piece (in piece order) that has no identical copy, so the
 * shuffle seed picks which of the four corners of the solution the row scan (and the column scan) starts from. This prints Knuth's estimate of the
 * whole tree for each corner piece fixed at the top-left, along rows and along columns: eight trees per board, each
 * holding the board's solution once (the rotations of the board are its only symmetry).
 *
 *   node --import tsx bench/start-corners.ts [--board 08x08] [--seeds 1,2,3] [--probes 20000]
 */

import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { readBrendan } from "../core/formats/index.js";
import { shufflePuzzle } from "../core/generate.js";
import { equivalentPieces, pieceKind, rotatedEdge, type Edges } from "../core/puzzle.js";
import { engineProblem, locateEngine } from "../worker/engine/index.js";

const { values } = parseArgs({
  options: {
    board: { type: "string", default: "08x08" },
    seeds: { type: "string", default: "1,2,3" },
    probes: { type: "string", default: "20000" },
  },
});

const engine = locateEngine();
const file = `bench/puzzles/brendan/pieces_${values.board}.txt`;
const puzzle = readBrendan(readFileSync(file, "utf8"), file);
if (puzzle.rows !== puzzle.cols) throw new Error(`${file}: not a square board`);

/** The turn that puts a corner piece's two grey sides on top and on the left (edges N E S W, clockwise turns). */
function topLeftTurn(edges: Edges): number {
  for (let rot = 0; rot < 4; rot++) if (rotatedEdge(edges, rot, 0) === 0 && rotatedEdge(edges, rot, 3) === 0) return rot;
  throw new Error("not a corner piece");
}

process.stdout.write(`${file}, Knuth's estimate from ${values.probes} probes (nodes, stderr)\n`);
for (const seed of values.seeds!.split(",").map(Number)) {
  const { puzzle: shuffled } = shufflePuzzle(puzzle, seed);
  const corners = shuffled.pieces.flatMap((p, i) => (pieceKind(p) === "corner" ? [i] : []));
  const pinned = corners.find((i) => !shuffled.pieces.some((q, j) => j !== i && equivalentPieces(q.edges, shuffled.pieces[i].edges)));
  for (const piece of corners) {
    const input = engineProblem(shuffled, [{ cell: 0, piece, rot: topLeftTurn(shuffled.pieces[piece].edges) }])!;
    const trees = ["row", "col"].map((order) => {
      const out = execFileSync(engine, ["--order", order, "--estimate", values.probes!, "--nodes", "1"], { input, encoding: "utf8" });
      const m = /^c estimate nodes=(\S+) stderr=(\S+)/m.exec(out);
      if (!m) throw new Error(`no estimate from the engine:\n${out}`);
      return `${order} ${Number(m[1]).toExponential(2)} (${Number(m[2]).toExponential(1)})`;
    });
    const note = piece === pinned ? "  <- --symmetry's corner" : "";
    process.stdout.write(`seed ${seed} corner piece ${piece}: ${trees.join(", ")}${note}\n`);
  }
}
