/**
 * A puzzle as the CLI prints its boards, whatever its shape (square or triangle): the size fields of the JSON
 * (`rows`, `cols`, or `shape: "triangle"`, `side`), a board as JSON (`board[row][col]`, or `board[row][pos]` on a
 * triangle) and for people (the grid or the triangle listing, and `--svg FILE`), and the shape's independent
 * verifier. Boards come as placements (cell, piece index, rotation), as the coordinator records them.
 */

import { EncoderBugError } from "../core/errors.js";
import { boardToJSON, writeCanonical } from "../core/formats/index.js";
import { boardFromPlacements, type Placement, type Puzzle } from "../core/puzzle.js";
import { triangleBoardToJSON, writeTriangle } from "../core/triangle/format.js";
import { isTrianglePuzzle, triangleBoardFromPlacements, type TrianglePuzzle } from "../core/triangle/puzzle.js";
import { renderTriangleSVG, renderTriangleText } from "../core/triangle/render.js";
import { verifyTriangleBoard } from "../core/triangle/verify.js";
import { verifySolution } from "../core/verify.js";
import { showBoard } from "./board-output.js";
import { writeOutput } from "./io.js";

export interface PuzzleView {
  readonly shape: "square" | "triangle" | "formula";
  readonly name: string | undefined;
  /** The canonical text (a run's puzzle). */
  readonly text: string;
  /** The JSON's size fields: `{rows, cols}`, or `{shape: "triangle", side}`. */
  readonly size: Readonly<Record<string, string | number>>;
  /** "6x6", or "triangle 6". */
  readonly sizeText: string;
  readonly cells: number;
  /** A board as the JSON's `board`. */
  boardJSON(cells: readonly Placement[]): unknown;
  /** Prints a board for people on `out` (the grid or listing) and writes `--svg FILE`. */
  show(cells: readonly Placement[], values: { svg?: unknown; color?: unknown; compact?: unknown }, out?: (s: string) => void): Promise<void>;
  /** Throws EncoderBugError (`what` says whose board) unless the board is a solution by the shape's own verifier. */
  verify(cells: readonly Placement[], what: string): void;
}

const stdout = (s: string): void => void process.stdout.write(s);

export function puzzleView(puzzle: Puzzle | TrianglePuzzle): PuzzleView {
  if (isTrianglePuzzle(puzzle)) {
    const board = (cells: readonly Placement[]) => triangleBoardFromPlacements(puzzle.side, cells);
    return {
      shape: "triangle", name: puzzle.name, text: writeTriangle(puzzle), size: { shape: "triangle", side: puzzle.side }, sizeText: `triangle ${puzzle.side}`,
      cells: puzzle.side * puzzle.side,
      boardJSON: (cells) => triangleBoardToJSON(board(cells), puzzle),
      async show(cells, values, out = stdout) {
        out(renderTriangleText(puzzle, board(cells)) + "\n");
        if (typeof values.svg === "string") await writeOutput(values.svg, renderTriangleSVG(puzzle, board(cells)));
      },
      verify(cells, what) {
        const v = verifyTriangleBoard(puzzle, board(cells));
        if (!v.ok) throw new EncoderBugError(`${what}: ${v.violations[0].message}`);
      },
    };
  }
  const board = (cells: readonly Placement[]) => boardFromPlacements(puzzle, cells);
  return {
    shape: "square", name: puzzle.name, text: writeCanonical(puzzle), size: { rows: puzzle.rows, cols: puzzle.cols }, sizeText: `${puzzle.rows}x${puzzle.cols}`,
    cells: puzzle.rows * puzzle.cols,
    boardJSON: (cells) => boardToJSON(board(cells), puzzle),
    show: (cells, values, out = stdout) => showBoard(puzzle, board(cells), values, out),
    verify(cells, what) {
      const v = verifySolution(puzzle, board(cells));
      if (!v.ok) throw new EncoderBugError(`${what}: ${v.violations[0].message}`);
    },
  };
}
