/**
 * SVG rendering of a (possibly partial) board: the usual four-triangles picture. Each placed cell is
 * split by its diagonals into north, east, south and west triangles filled with the colour of that
 * side (`colourHex`, grey for 0); every cell, placed or not, gets a thin border; empty cells stay blank.
 *
 * The output is a standalone SVG document (xmlns, viewBox, width, height), a pure function of its
 * inputs (byte-identical for equal inputs), so the CLI can write it to a file and the dashboard can
 * inline it. Each placed cell is a `<g data-cell data-piece data-rot>` (cell index, piece id, rotation)
 * holding exactly four `<polygon>`s, in N, E, S, W order. A mismatched inner edge (two placed sides that
 * disagree, as on a score search's board) is drawn as a red `<line data-mismatch="A-B">` over the shared edge.
 */

import { InvalidOptionError } from "../errors.js";
import { rotatedEdge, type Board, type Puzzle } from "../puzzle.js";
import { colourHex } from "./palette.js";

/** Options of `renderSVG`. */
export interface SvgRenderOptions {
  /** Side of a cell in SVG user units (= pixels at scale 1). @default 40 */
  readonly cellSize?: number;
  /** Write each placed piece's id in the middle of its cell. @default false */
  readonly ids?: boolean;
  /** Text of the `<title>` element. @default puzzle.name (no title when absent) */
  readonly title?: string;
}

/** Renders `board` as a standalone SVG document. */
export function renderSVG(puzzle: Puzzle, board: Board, opts: SvgRenderOptions = {}): string {
  const size = opts.cellSize ?? 40;
  if (!Number.isFinite(size) || size <= 0) throw new InvalidOptionError("cellSize", `${size} is not a positive number`);
  if (board.cells.length !== board.rows * board.cols) {
    throw new InvalidOptionError("board", `has ${board.cells.length} cells for ${board.rows}x${board.cols}`);
  }
  const width = board.cols * size;
  const height = board.rows * size;
  const border = fmt(Math.max(0.5, size / 40));
  const title = opts.title ?? puzzle.name;

  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${fmt(width)}" height="${fmt(height)}" viewBox="0 0 ${fmt(width)} ${fmt(height)}">`,
  ];
  if (title !== undefined && title !== "") out.push(`<title>${escapeXml(title)}</title>`);
  out.push(`<rect width="${fmt(width)}" height="${fmt(height)}" fill="#ffffff"/>`);

  const pieces: string[] = [];
  const cells: string[] = [];
  const ids: string[] = [];
  for (let cell = 0; cell < board.cells.length; cell++) {
    const x = (cell % board.cols) * size;
    const y = Math.floor(cell / board.cols) * size;
    cells.push(`<rect x="${fmt(x)}" y="${fmt(y)}" width="${fmt(size)}" height="${fmt(size)}"/>`);
    const c = board.cells[cell];
    if (c === null || c === undefined) continue;
    if (!Number.isInteger(c.piece) || c.piece < 0 || c.piece >= puzzle.pieces.length) continue;
    const piece = puzzle.pieces[c.piece];
    const cx = x + size / 2, cy = y + size / 2;
    const corners: Array<[number, number]> = [[x, y], [x + size, y], [x + size, y + size], [x, y + size]];
    // Side d lies between corner d and corner d+1 (NW-NE is north, NE-SE east, SE-SW south, SW-NW west).
    const polys: string[] = [];
    for (let d = 0; d < 4; d++) {
      const [ax, ay] = corners[d];
      const [bx, by] = corners[(d + 1) & 3];
      const fill = colourHex(rotatedEdge(piece.edges, c.rot, d));
      polys.push(`<polygon points="${fmt(ax)},${fmt(ay)} ${fmt(bx)},${fmt(by)} ${fmt(cx)},${fmt(cy)}" fill="${fill}"/>`);
    }
    pieces.push(`<g data-cell="${cell}" data-piece="${piece.id}" data-rot="${c.rot}">${polys.join("")}</g>`);
    if (opts.ids) {
      ids.push(`<text x="${fmt(cx)}" y="${fmt(cy)}">${piece.id}</text>`);
    }
  }

  out.push(`<g stroke="#333333" stroke-width="${fmt(Math.max(0.25, size / 120))}" stroke-linejoin="round">`, ...pieces, `</g>`);
  out.push(`<g fill="none" stroke="#111111" stroke-width="${border}">`, ...cells, `</g>`);
  const broken = mismatchLines(puzzle, board, size);
  if (broken.length > 0) {
    out.push(`<g class="mismatches" stroke="#e00000" stroke-width="${fmt(Math.max(2, size / 10))}" stroke-linecap="round">`, ...broken, `</g>`);
  }
  if (ids.length > 0) {
    out.push(
      `<g font-family="monospace" font-size="${fmt(size * 0.3)}" text-anchor="middle" dominant-baseline="central" ` +
        `fill="#000000" stroke="#ffffff" stroke-width="${fmt(size / 20)}" paint-order="stroke">`,
      ...ids,
      `</g>`,
    );
  }
  out.push(`</svg>`);
  return out.join("\n") + "\n";
}

/** A number with at most 2 decimals, no trailing zeros: stable text for coordinates. */
/** A red line over every inner edge whose two placed sides disagree (a board from a score search). */
function mismatchLines(puzzle: Puzzle, board: Board, size: number): string[] {
  const colour = (cell: number, d: number): number | null => {
    const c = board.cells[cell];
    if (c == null || !Number.isInteger(c.piece) || c.piece < 0 || c.piece >= puzzle.pieces.length) return null;
    return rotatedEdge(puzzle.pieces[c.piece].edges, c.rot, d);
  };
  const lines: string[] = [];
  for (let cell = 0; cell < board.cells.length; cell++) {
    const row = Math.floor(cell / board.cols), col = cell % board.cols;
    const here = (d: number): number | null => colour(cell, d);
    if (col + 1 < board.cols) {
      const a = here(1), b = colour(cell + 1, 3);
      const x = (col + 1) * size;
      if (a !== null && b !== null && a !== b) lines.push(`<line data-mismatch="${cell}-${cell + 1}" x1="${fmt(x)}" y1="${fmt(row * size)}" x2="${fmt(x)}" y2="${fmt((row + 1) * size)}"/>`);
    }
    if (row + 1 < board.rows) {
      const a = here(2), b = colour(cell + board.cols, 0);
      const y = (row + 1) * size;
      if (a !== null && b !== null && a !== b) lines.push(`<line data-mismatch="${cell}-${cell + board.cols}" x1="${fmt(col * size)}" y1="${fmt(y)}" x2="${fmt((col + 1) * size)}" y2="${fmt(y)}"/>`);
    }
  }
  return lines;
}

function fmt(n: number): string {
  return String(Math.round(n * 100) / 100);
}

/** Text for XML content or attribute values: the five special characters as entities. */
export function escapeXml(s: string): string {
  return s.replace(/[&<>"']/g, (ch) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&apos;" })[ch] ?? ch);
}
