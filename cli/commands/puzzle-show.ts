import type { CommandSpec, ParsedValues } from "../args.js";
import { terminalSafe } from "../../cluster/terminal-text.js";
import { EXIT } from "../exit-codes.js";
import { readPuzzleText, showTriangleCommand } from "../triangle-commands.js";
import { inputLimitOf, loadPuzzle, PUZZLE_OPTIONS, puzzleReadOptions } from "../io.js";
import { boardFromPlacements, cellOf, isBounded, pieceKind } from "../../core/puzzle.js";
import { colourParityProblems } from "../../core/validate.js";
import { BOARD_OUTPUT_OPTIONS, showBoard } from "../board-output.js";

export const spec: CommandSpec = {
  name: "puzzle show",
  summary: "Describe a puzzle (size, piece kinds, colours, hints) and draw its hints.",
  usage: "cubist puzzle show <puzzle> [--json] [--svg FILE]",
  positionals: { min: 1, max: 1 },
  options: { ...PUZZLE_OPTIONS, ...BOARD_OUTPUT_OPTIONS, json: { type: "boolean", description: "print the summary as JSON" } },
  details: `A triangle puzzle (first line \`triangle N\`, docs/formats.md) is described by its side, pieces, rotation,
frame, labels and hints (--json: {"name", "shape": "triangle", "side", "pieces", "rotate", "frame", "labels", "hints"}).`,
};

export async function run(values: ParsedValues, [path]: string[]): Promise<number> {
  const { text, triangle } = await readPuzzleText(path, inputLimitOf(values));
  if (triangle) return showTriangleCommand(triangle, values);
  const puzzle = await loadPuzzle(path, { ...puzzleReadOptions(values), text });
  const kinds = { corner: 0, border: 0, center: 0 };
  const frame = new Set<number>();
  const inner = new Set<number>();
  for (const p of puzzle.pieces) {
    const k = pieceKind(p);
    kinds[k]++;
    // Frame colours are the colours a border piece shows next to its grey side's neighbours (along the rim).
    const e = p.edges;
    for (let d = 0; d < 4; d++) {
      if (e[d] === 0) continue;
      const alongRim = e[(d + 1) & 3] === 0 || e[(d + 3) & 3] === 0;
      (alongRim ? frame : inner).add(e[d]);
    }
  }
  const bounded = isBounded(puzzle);
  const parity = colourParityProblems(puzzle);
  const summary = {
    name: puzzle.name ?? path,
    rows: puzzle.rows,
    cols: puzzle.cols,
    pieces: puzzle.pieces.length,
    bounded,
    corner: kinds.corner,
    border: kinds.border,
    center: kinds.center,
    frameColours: [...frame].sort((a, b) => a - b),
    innerColours: [...inner].sort((a, b) => a - b),
    hints: puzzle.hints.map((h) => ({ row: h.row, col: h.col, id: puzzle.pieces[h.piece].id, rot: h.rot })),
    oddColours: parity.map((p) => p.colour),
  };
  if (values.json) {
    process.stdout.write(JSON.stringify(summary) + "\n");
    return EXIT.OK;
  }
  const lines = [
    `${terminalSafe(summary.name)}: ${puzzle.rows} x ${puzzle.cols}, ${puzzle.pieces.length} pieces, ${bounded ? "bounded (grey rim)" : "unbounded (no grey)"}`,
    bounded ? `pieces: ${kinds.corner} corner, ${kinds.border} border, ${kinds.center} centre` : `pieces: all centre pieces`,
    bounded
      ? `colours: ${frame.size} frame [${summary.frameColours.join(" ")}], ${inner.size} inner [${summary.innerColours.join(" ")}]`
      : `colours: ${inner.size} [${summary.innerColours.join(" ")}]`,
    `hints: ${puzzle.hints.length === 0 ? "none" : summary.hints.map((h) => `piece ${h.id} at (${h.row},${h.col}) rot ${h.rot}`).join("; ")}`,
  ];
  if (parity.length > 0) lines.push(`warning: colour(s) ${parity.map((p) => `${p.colour} (x${p.count})`).join(", ")} occur an odd number of times: no solution can exist`);
  process.stdout.write(lines.join("\n") + "\n");
  if (puzzle.hints.length > 0 || values.svg) {
    const board = boardFromPlacements(puzzle, puzzle.hints.map((h) => ({ cell: cellOf(puzzle, h.row, h.col), piece: h.piece, rot: h.rot })));
    await showBoard(puzzle, board, values);
  }
  return EXIT.OK;
}
