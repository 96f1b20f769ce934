import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

import { readBrendan, readBrendanSolution } from "../../core/formats/brendan.js";
import { rotatedEdge, type Board, type Puzzle } from "../../core/puzzle.js";
import { renderSVG } from "../../core/render/svg.js";
import { colourHex, colourLetter, PALETTE } from "../../core/render/palette.js";

const fixture = (path: string): string => readFileSync(fileURLToPath(new URL(`../fixtures/${path}`, import.meta.url)), "utf8");

function brendan(size: string): { puzzle: Puzzle; board: Board } {
  const puzzle = readBrendan(fixture(`brendan/pieces_${size}.txt`), `pieces_${size}.txt`);
  const board = readBrendanSolution(fixture(`brendan/solutions_${size}.txt`), `solutions_${size}.txt`, puzzle);
  return { puzzle, board };
}

interface Element {
  name: string;
  attrs: Record<string, string>;
  text: string;
}

/** A tiny XML well-formedness check: balanced tags, quoted attributes, no stray `<` or `&`. Returns the elements. */
function parseXml(xml: string): Element[] {
  const stack: string[] = [];
  const out: Element[] = [];
  const token = /<(\/?)([A-Za-z][\w:-]*)((?:\s+[\w:-]+="[^"<]*")*)\s*(\/?)>|([^<]+)/gy;
  let m: RegExpExecArray | null;
  let last = 0;
  let open: Element | null = null;
  while ((m = token.exec(xml)) !== null) {
    last = token.lastIndex;
    const [, close, name, attrText, selfClose, text] = m;
    if (text !== undefined) {
      assert.doesNotMatch(text, /&(?!(amp|lt|gt|quot|apos);)/, "stray & in text");
      if (open) open.text += text;
      continue;
    }
    if (close) {
      assert.equal(stack.pop(), name, `</${name}> closes the wrong element`);
      open = null;
      continue;
    }
    const attrs: Record<string, string> = {};
    for (const a of attrText.matchAll(/([\w:-]+)="([^"]*)"/g)) {
      assert.ok(!(a[1] in attrs), `duplicate attribute ${a[1]}`);
      attrs[a[1]] = a[2];
    }
    const el = { name, attrs, text: "" };
    out.push(el);
    if (!selfClose) {
      stack.push(name);
      open = el;
    }
  }
  assert.equal(last, xml.length, `unparsable XML at ${last}: ${xml.slice(last, last + 40)}`);
  assert.deepEqual(stack, [], "unclosed elements");
  return out;
}

test("render svg - a standalone document with four triangles per placed cell", () => {
  const { puzzle, board } = brendan("06x06");
  const svg = renderSVG(puzzle, board);
  const els = parseXml(svg);
  const root = els[0];
  assert.equal(root.name, "svg");
  assert.equal(root.attrs.xmlns, "http://www.w3.org/2000/svg");
  assert.equal(root.attrs.viewBox, "0 0 240 240");
  assert.equal(root.attrs.width, "240");
  assert.equal(root.attrs.height, "240");
  assert.equal(els.filter((e) => e.name === "polygon").length, 4 * 36);
  assert.equal(els.filter((e) => e.name === "g" && "data-cell" in e.attrs).length, 36);
  assert.equal(els.filter((e) => e.name === "rect").length, 36 + 1, "a border per cell and the background");
  assert.equal(els.filter((e) => e.name === "text").length, 0, "no ids unless asked");
  assert.equal(els.find((e) => e.name === "title")?.text, "pieces_06x06");
});

test("render svg - each triangle has the colour of its placed side", () => {
  const { puzzle, board } = brendan("06x06");
  const els = parseXml(renderSVG(puzzle, board, { cellSize: 10 }));
  const polys = els.filter((e) => e.name === "polygon");
  for (let cell = 0; cell < 36; cell++) {
    const c = board.cells[cell]!;
    const x = (cell % 6) * 10, y = Math.floor(cell / 6) * 10;
    for (let d = 0; d < 4; d++) {
      const p = polys[cell * 4 + d];
      assert.equal(p.attrs.fill, colourHex(rotatedEdge(puzzle.pieces[c.piece].edges, c.rot, d)));
      // every triangle touches the cell centre
      assert.ok(p.attrs.points.endsWith(` ${x + 5},${y + 5}`), p.attrs.points);
    }
    // the north triangle spans the top side of the cell
    assert.equal(polys[cell * 4].attrs.points, `${x},${y} ${x + 10},${y} ${x + 5},${y + 5}`);
  }
  // the rim is grey
  assert.equal(polys[0].attrs.fill, "#9a9a9a");
  assert.equal(polys[3].attrs.fill, "#9a9a9a");
});

test("render svg - a partial board leaves empty cells blank and can show piece ids", () => {
  const { puzzle, board } = brendan("04x04");
  const partial: Board = { ...board, cells: board.cells.map((c, i) => (i < 6 ? null : c)) };
  const els = parseXml(renderSVG(puzzle, partial, { ids: true, cellSize: 32, title: "a <partial> & 'quoted' board" }));
  assert.equal(els.filter((e) => e.name === "polygon").length, 4 * 10);
  assert.equal(els.filter((e) => e.name === "rect").length, 16 + 1);
  const texts = els.filter((e) => e.name === "text").map((e) => e.text);
  assert.deepEqual(texts, partial.cells.flatMap((c) => (c ? [String(puzzle.pieces[c.piece].id)] : [])));
  assert.equal(els[0].attrs.viewBox, "0 0 128 128");
  const svg = renderSVG(puzzle, partial, { title: "a <partial> & 'quoted' board" });
  assert.ok(svg.includes("<title>a &lt;partial&gt; &amp; &apos;quoted&apos; board</title>"));
  const empty: Board = { rows: 4, cols: 4, cells: new Array(16).fill(null) };
  assert.equal(parseXml(renderSVG(puzzle, empty)).filter((e) => e.name === "polygon").length, 0);
});

test("render svg - output is deterministic and colours are stable", () => {
  const { puzzle, board } = brendan("16x16");
  assert.equal(renderSVG(puzzle, board, { ids: true }), renderSVG(puzzle, board, { ids: true }));
  assert.equal(PALETTE.length >= 24, true);
  assert.deepEqual(PALETTE.slice(0, 6), ["#9a9a9a", "#e6194b", "#3cb44b", "#ffe119", "#4363d8", "#f58231"]);
  assert.equal(new Set(PALETTE).size, PALETTE.length, "palette colours are distinct");
  // Beyond the palette: a fixed generator, distinct from the palette and from each other.
  const extra = Array.from({ length: 40 }, (_, i) => colourHex(PALETTE.length + i));
  for (const hex of extra) assert.match(hex, /^#[0-9a-f]{6}$/);
  assert.equal(new Set([...PALETTE, ...extra]).size, PALETTE.length + 40);
  assert.equal(colourHex(30), colourHex(30));
  assert.equal(colourHex(25), "#63c1e9");
  assert.equal(colourHex(26), "#c91d64");
  assert.equal(colourLetter(0), "a");
  assert.equal(colourLetter(22), "w");
});

test("render svg - no edge colour looks like the white of an empty cell (colour 14 was beige, 21 white)", () => {
  const [wr, wg, wb] = [255, 255, 255];
  for (let k = 0; k < PALETTE.length + 40; k++) {
    const n = parseInt(colourHex(k).slice(1), 16);
    const dist = Math.hypot(((n >> 16) & 255) - wr, ((n >> 8) & 255) - wg, (n & 255) - wb);
    assert.ok(dist >= 70, `colour ${k} (${colourHex(k)}) is ${dist.toFixed(0)} from white`);
  }
  assert.notEqual(colourHex(14), "#fffac8");
  assert.notEqual(colourHex(21), "#ffffff");
  assert.equal(colourLetter(26), "A");
});

test("render svg - mismatched edges of a score board are drawn in red over the shared edge; a solution has none", () => {
  const { puzzle, board } = brendan("04x04");
  assert.equal(renderSVG(puzzle, board).includes("data-mismatch"), false);
  const cells = [...board.cells];
  [cells[5], cells[6]] = [cells[6], cells[5]];
  const svg = renderSVG(puzzle, { ...board, cells }, { cellSize: 40 });
  const lines = [...svg.matchAll(/<line data-mismatch="(\d+)-(\d+)" x1="([\d.]+)" y1="([\d.]+)" x2="([\d.]+)" y2="([\d.]+)"\/>/g)];
  const pairs = lines.map((m) => `${m[1]}-${m[2]}`).sort();
  // Exactly the joins the text renderer marks for the same swap: the joins of cells 5 and 6 whose colours differ.
  const expected: string[] = [];
  const colour = (cell: number, d: number): number => rotatedEdge(puzzle.pieces[cells[cell]!.piece].edges, cells[cell]!.rot, d);
  for (let cell = 0; cell < 16; cell++) {
    if (cell % 4 < 3 && colour(cell, 1) !== colour(cell + 1, 3)) expected.push(`${cell}-${cell + 1}`);
    if (cell < 12 && colour(cell, 2) !== colour(cell + 4, 0)) expected.push(`${cell}-${cell + 4}`);
  }
  assert.ok(expected.length > 0);
  assert.deepEqual(pairs, expected.sort());
  // The vertical join between cells 5 and 6 sits at x = 2 * 40 from y = 40 to 80.
  const m = lines.find((l) => l[1] === "5" && l[2] === "6");
  if (m) assert.deepEqual(m.slice(3, 7).map(Number), [80, 40, 80, 80]);
});
