/**
 * Terminal rendering of a (possibly partial) board.
 *
 * Grid layout: each cell is 3 lines inside `+---+` borders: the north colour centred on top, west and
 * east colours at the sides of the middle line with the piece id between them, the south colour
 * centred at the bottom. Colours are numbers, or letters as the e2.bucas.name viewer writes them
 * (a = grey). Empty cells are filled with dots; a cell whose piece index is out of range shows `?`.
 * A 16x16 Eternity II board is 161 columns wide.
 *
 * Compact layout: one line per board row, cells as `id/rot` (the layout of e2_reference_boards.txt),
 * `.` for an empty cell. `layout: "auto"` (the default) picks the grid when it fits `maxWidth`.
 *
 * With `color`, each colour label gets its palette colour as an ANSI 24-bit background. A mismatched inner edge
 * (a board from a score search) is drawn with `x`: the rule segment between the two rows, or the border between
 * the two columns on the middle line.
 */

import { InvalidOptionError } from "../errors.js";
import { maxColour, rotatedEdge, type Board, type Puzzle } from "../puzzle.js";
import { colourHex, colourLetter, hexRgb, isLight, MAX_LETTER_COLOUR } from "./palette.js";

/** Options of `renderText`. */
export interface TextRenderOptions {
  /** Colour labels: decimal numbers, or letters a.. (a = grey) as in the bucas viewer. @default "number" */
  readonly labels?: "number" | "letter";
  /** Wrap colour labels in ANSI 24-bit background colours. @default false */
  readonly color?: boolean;
  /** "grid", "compact", or "auto" (grid when it fits `maxWidth`, else compact). @default "auto" */
  readonly layout?: "grid" | "compact" | "auto";
  /** Terminal width used by `layout: "auto"`. @default 200 */
  readonly maxWidth?: number;
}

const ANSI_RESET = "\x1b[0m";

/** Renders `board` as text; lines end with "\n". */
export function renderText(puzzle: Puzzle, board: Board, opts: TextRenderOptions = {}): string {
  const labels = opts.labels ?? "number";
  const layout = opts.layout ?? "auto";
  const maxWidth = opts.maxWidth ?? 200;
  if (labels !== "number" && labels !== "letter") throw new InvalidOptionError("labels", `'${labels}' is not number or letter`);
  if (layout !== "grid" && layout !== "compact" && layout !== "auto") {
    throw new InvalidOptionError("layout", `'${layout}' is not grid, compact or auto`);
  }
  if (board.cells.length !== board.rows * board.cols) {
    throw new InvalidOptionError("board", `has ${board.cells.length} cells for ${board.rows}x${board.cols}`);
  }
  const top = maxColour(puzzle);
  if (labels === "letter" && top > MAX_LETTER_COLOUR) {
    throw new InvalidOptionError("labels", `colour ${top} has no letter (letters cover colours 0..${MAX_LETTER_COLOUR})`);
  }
  const grid = gridGeometry(puzzle, labels);
  const gridWidth = board.cols * (grid.cellWidth + 1) + 1;
  const useGrid = layout === "grid" || (layout === "auto" && gridWidth <= maxWidth);
  return useGrid ? renderGrid(puzzle, board, grid, labels, opts.color ?? false) : renderCompact(puzzle, board);
}

interface GridGeometry {
  /** Width of a colour label. */
  readonly colourWidth: number;
  /** Width of a piece id. */
  readonly idWidth: number;
  /** Characters inside a cell, between its `|` borders. */
  readonly cellWidth: number;
}

function gridGeometry(puzzle: Puzzle, labels: "number" | "letter"): GridGeometry {
  const colourWidth = labels === "letter" ? 1 : String(maxColour(puzzle)).length;
  let idWidth = 1;
  for (const p of puzzle.pieces) idWidth = Math.max(idWidth, String(p.id).length);
  return { colourWidth, idWidth, cellWidth: 2 * colourWidth + idWidth + 2 };
}

function renderGrid(puzzle: Puzzle, board: Board, g: GridGeometry, labels: "number" | "letter", color: boolean): string {
  const rule = "+" + ("-".repeat(g.cellWidth) + "+").repeat(board.cols);
  const label = (k: number): string => {
    const plain = (labels === "letter" ? colourLetter(k) : String(k)).padStart(g.colourWidth);
    if (!color) return plain;
    const hex = colourHex(k);
    const [r, gr, b] = hexRgb(hex);
    const fg = isLight(hex) ? "30" : "97";
    return `\x1b[${fg};48;2;${r};${gr};${b}m${plain}${ANSI_RESET}`;
  };
  const blank = (n: number): string => " ".repeat(n);
  const northPad = Math.floor((g.cellWidth - g.colourWidth) / 2);
  const southPad = g.cellWidth - g.colourWidth - northPad;
  // A mismatched inner edge (both cells placed, colours differ) is drawn with x: the rule segment between rows,
  // or the border between columns on the cell's middle line.
  const colourAt = (cell: number, d: number): number | null => {
    const c = board.cells[cell];
    if (c == null || !Number.isInteger(c.piece) || c.piece < 0 || c.piece >= puzzle.pieces.length) return null;
    return rotatedEdge(puzzle.pieces[c.piece].edges, c.rot, d);
  };
  const broken = (a: number | null, b: number | null): boolean => a !== null && b !== null && a !== b;
  const ruleAbove = (row: number): string => {
    if (row === 0) return rule;
    let line = "+";
    for (let col = 0; col < board.cols; col++) {
      const cell = row * board.cols + col;
      line += (broken(colourAt(cell - board.cols, 2), colourAt(cell, 0)) ? "x" : "-").repeat(g.cellWidth) + "+";
    }
    return line;
  };
  const out: string[] = [];
  for (let row = 0; row < board.rows; row++) {
    out.push(ruleAbove(row));
    const lines = ["|", "|", "|"];
    for (let col = 0; col < board.cols; col++) {
      const c = board.cells[row * board.cols + col];
      let cellLines: [string, string, string];
      if (c === null || c === undefined) {
        const dots = ".".repeat(g.cellWidth);
        cellLines = [dots, dots, dots];
      } else if (!Number.isInteger(c.piece) || c.piece < 0 || c.piece >= puzzle.pieces.length) {
        const q = "?".padStart(g.colourWidth);
        cellLines = [
          blank(northPad) + q + blank(southPad),
          q + " " + "?".padStart(g.idWidth) + " " + q,
          blank(northPad) + q + blank(southPad),
        ];
      } else {
        const piece = puzzle.pieces[c.piece];
        const side = (d: number): string => label(rotatedEdge(piece.edges, c.rot, d));
        cellLines = [
          blank(northPad) + side(0) + blank(southPad),
          side(3) + " " + String(piece.id).padStart(g.idWidth) + " " + side(1),
          blank(northPad) + side(2) + blank(southPad),
        ];
      }
      const cell = row * board.cols + col;
      const east = col + 1 < board.cols && broken(colourAt(cell, 1), colourAt(cell + 1, 3));
      for (let i = 0; i < 3; i++) lines[i] += cellLines[i] + (east && i === 1 ? "x" : "|");
    }
    out.push(...lines);
  }
  out.push(rule);
  return out.join("\n") + "\n";
}

function renderCompact(puzzle: Puzzle, board: Board): string {
  const token = (c: Board["cells"][number]): string => {
    if (c === null || c === undefined) return ".";
    const id = Number.isInteger(c.piece) && c.piece >= 0 && c.piece < puzzle.pieces.length ? String(puzzle.pieces[c.piece].id) : "?";
    return `${id}/${c.rot}`;
  };
  const tokens = Array.from(board.cells, token);
  const width = tokens.reduce((m, t) => Math.max(m, t.length), 1);
  const out: string[] = [];
  for (let row = 0; row < board.rows; row++) {
    out.push(tokens.slice(row * board.cols, (row + 1) * board.cols).map((t) => t.padStart(width)).join(" "));
  }
  return out.join("\n") + "\n";
}
