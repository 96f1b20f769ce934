/**
 * Drawing triangle boards: an SVG picture (each cell a triangle with its three labels written inside next to their
 * edges, coloured by label) and a terminal listing (one line per row: `id:H/R/F` per cell, up cells marked ^ and
 * down cells v).
 */

import { cellAt, placedLabel, type TriangleBoard, type TrianglePuzzle } from "./puzzle.js";
import { escapeXml } from "../render/svg.js";

const PALETTE = ["#9e9e9e", "#e53935", "#1e88e5", "#43a047", "#fdd835", "#8e24aa", "#fb8c00", "#00acc1", "#6d4c41", "#d81b60", "#7cb342"];

function colour(label: number): string {
  return PALETTE[label % PALETTE.length];
}

export function renderTriangleSVG(puzzle: TrianglePuzzle, board: TriangleBoard): string {
  const n = puzzle.side;
  const a = 100; // cell edge length
  const h = (a * Math.sqrt(3)) / 2;
  const pad = 10;
  const width = n * a + 2 * pad, height = n * h + 2 * pad;
  const pt = (i: number, j: number): [number, number] => [pad + (n * a) / 2 + (j - i / 2) * a, pad + i * h];
  const f = (x: number): string => x.toFixed(1);
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${f(width)}" height="${f(height)}" viewBox="0 0 ${f(width)} ${f(height)}" font-family="sans-serif">`,
    `<title>${escapeXml(puzzle.name ?? "triangle")}</title>`,
  ];
  for (let r = 0; r < n; r++) {
    for (let k = 0; k <= 2 * r; k++) {
      const t = k >> 1;
      const up = (k & 1) === 0;
      const corners = up ? [pt(r, t), pt(r + 1, t), pt(r + 1, t + 1)] : [pt(r, t), pt(r, t + 1), pt(r + 1, t + 1)];
      const cx = (corners[0][0] + corners[1][0] + corners[2][0]) / 3;
      const cy = (corners[0][1] + corners[1][1] + corners[2][1]) / 3;
      out.push(`<polygon points="${corners.map(([x, y]) => `${f(x)},${f(y)}`).join(" ")}" fill="#fafafa" stroke="#333" stroke-width="1.5"/>`);
      const c = board.cells[cellAt(r, k)];
      if (!c) continue;
      const edges = puzzle.pieces[c.piece].edges;
      // Edge midpoints by direction: up cell H = bottom, R = left, F = right; down cell H = top, F = left, R = right.
      const mid = (p: [number, number], q: [number, number]): [number, number] => [(p[0] + q[0]) / 2, (p[1] + q[1]) / 2];
      const mids: Array<[number, number]> = up
        ? [mid(corners[1], corners[2]), mid(corners[0], corners[1]), mid(corners[0], corners[2])]
        : [mid(corners[0], corners[1]), mid(corners[1], corners[2]), mid(corners[0], corners[2])];
      for (let d = 0; d < 3; d++) {
        const label = placedLabel(edges, c.rot, d);
        const x = cx + (mids[d][0] - cx) * 0.62, y = cy + (mids[d][1] - cy) * 0.62;
        out.push(`<circle cx="${f(x)}" cy="${f(y)}" r="9" fill="${colour(label)}"/>`);
        out.push(`<text x="${f(x)}" y="${f(y + 4)}" font-size="11" text-anchor="middle" fill="#fff">${label}</text>`);
      }
      out.push(`<text x="${f(cx)}" y="${f(cy + 4)}" font-size="10" text-anchor="middle" fill="#555">${puzzle.pieces[c.piece].id}</text>`);
    }
  }
  out.push("</svg>");
  return out.join("\n") + "\n";
}

/** One line per row, centred: `^id:H/R/F` for up cells, `vid:H/R/F` for down cells, `.` where empty. */
export function renderTriangleText(puzzle: TrianglePuzzle, board: TriangleBoard): string {
  const rows: string[][] = [];
  let widest = 0;
  for (let r = 0; r < puzzle.side; r++) {
    const row: string[] = [];
    for (let k = 0; k <= 2 * r; k++) {
      const c = board.cells[cellAt(r, k)];
      const mark = (k & 1) === 0 ? "^" : "v";
      if (!c) row.push(`${mark}.`);
      else {
        const e = puzzle.pieces[c.piece].edges;
        row.push(`${mark}${puzzle.pieces[c.piece].id}:${placedLabel(e, c.rot, 0)}/${placedLabel(e, c.rot, 1)}/${placedLabel(e, c.rot, 2)}`);
      }
    }
    rows.push(row);
    for (const s of row) widest = Math.max(widest, s.length);
  }
  const lines = rows.map((row) => row.map((s) => s.padEnd(widest)).join(" "));
  const full = lines[lines.length - 1]?.length ?? 0;
  return lines.map((l) => " ".repeat(Math.max(0, Math.floor((full - l.length) / 2))) + l).join("\n");
}
