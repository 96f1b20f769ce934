/**
 * The certificate bundle's own encoder (certify/encode.py, run with the machine's python3) against Cubist's
 * (core/encode/placement*.ts): for a table of puzzles that covers what the encoding distinguishes (bounded and
 * unbounded boards, 2-row boards, identical pieces merged into units of several copies, hints, rotationally
 * symmetric pieces) and every variable order, `encode.py --check` must accept Cubist's formula, and refuse it with
 * one clause changed, one clause dropped, or another variable order (the paper order's formula, which the others
 * number differently).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { dimacsString, encode, variableOrders } from "../../core/encode/index.js";
import { parsePuzzle, writeCanonical } from "../../core/formats/index.js";
import { generatePuzzle } from "../../core/generate.js";
import type { Puzzle } from "../../core/puzzle.js";
import { REPO_ROOT } from "../helpers/processes.js";

const ENCODER = join(REPO_ROOT, "certify/encode.py");

/** A generated puzzle with hints taken from its planted solution at the given cells. */
function withHints(rows: number, cols: number, border: number, centre: number, seed: number, hintCells: number[], unbounded = false): Puzzle {
  const { puzzle, solution } = generatePuzzle({ rows, cols, borderColors: border, centerColors: centre, seed, unbounded });
  const hints = hintCells.map((cell) => ({ row: Math.floor(cell / cols), col: cell % cols, piece: solution.cells[cell]!.piece, rot: solution.cells[cell]!.rot }));
  return { ...puzzle, hints };
}

const file = (path: string): Puzzle => parsePuzzle(readFileSync(join(REPO_ROOT, path), "utf8"), path);

const PUZZLES: Array<[string, Puzzle]> = [
  ["clue1 (bounded 6x6)", file("test/fixtures/clues/clue1.txt")],
  ["em_7_3_6 (Heule's format, 7x7)", file("test/fixtures/heule2008/em_7_3_6.txt")],
  ["brendan 6x6", file("test/fixtures/brendan/pieces_06x06.txt")],
  ["em_8_4_5 shuffled, with a hint", file("examples/em_8_4_5-shuffled-s1.txt")],
  ["bounded 2x5, one border colour: identical pieces", generatePuzzle({ rows: 2, cols: 5, borderColors: 1, centerColors: 2, seed: 3 }).puzzle],
  ["bounded 5x4, few colours, hints on a corner, a border and a centre cell", withHints(5, 4, 1, 2, 7, [0, 1, 5, 6, 10])],
  ["unbounded 3x4, two colours: symmetric pieces, alike placements at the rim", generatePuzzle({ rows: 3, cols: 4, borderColors: 2, centerColors: 2, seed: 1, unbounded: true }).puzzle],
  ["unbounded 4x4 with hints", withHints(4, 4, 2, 3, 5, [0, 5, 15], true)],
];

function check(dir: string, formula: string, puzzle: string, order: string): { code: number | null; out: string } {
  const r = spawnSync("python3", [ENCODER, "--check", formula, "--order", order, puzzle], { encoding: "utf8" });
  return { code: r.status, out: r.stdout + r.stderr };
}

test("certificate encoder - encode.py re-derives Cubist's cubist-placement formula for every puzzle and order, and refuses an altered one", () => {
  const dir = mkdtempSync(join(tmpdir(), "cubist-cert-encoder-"));
  try {
    let n = 0;
    for (const [name, puzzle] of PUZZLES) {
      const puzzlePath = join(dir, `p${n++}.txt`);
      writeFileSync(puzzlePath, writeCanonical(puzzle));
      for (const order of variableOrders) {
        const formula = encode("cubist-placement", puzzle, { order });
        const text = dimacsString(formula);
        const cnf = join(dir, "f.cnf");
        writeFileSync(cnf, text);
        const ok = check(dir, cnf, puzzlePath, order);
        assert.equal(ok.code, 0, `${name}, ${order}: ${ok.out}`);
        assert.match(ok.out, new RegExp(`^formula: VERIFIED: .* \\(${formula.numVars} variables, ${formula.clauses.count} clauses\\)\\n$`));
        if (order !== "paper") continue;

        const lines = text.split("\n");
        // One literal of the last clause negated (the hints', or support's): same size, another formula.
        const last = lines.length - 2;
        writeFileSync(cnf, [...lines.slice(0, last), lines[last].replace(/^(-?)(\d+)/, (_m, sign: string, v: string) => `${sign === "-" ? "" : "-"}${v}`), ""].join("\n"));
        const flipped = check(dir, cnf, puzzlePath, order);
        assert.equal(flipped.code, 1, `${name}, ${order}, a literal flipped: ${flipped.out}`);
        assert.match(flipped.out, /^formula: NOT VERIFIED: .*: 1 clauses of the encoding are missing \(e\.g\. .* 0\), 1 others are in their place/);
        // The first clause dropped, the header adjusted.
        writeFileSync(cnf, [`p cnf ${formula.numVars} ${formula.clauses.count - 1}`, ...lines.slice(2)].join("\n"));
        const dropped = check(dir, cnf, puzzlePath, order);
        assert.equal(dropped.code, 1, `${name}, ${order}, a clause dropped: ${dropped.out}`);
        assert.match(dropped.out, /the puzzle's encoding \d+ and \d+\n$/);
      }
      // The paper order's formula under another order's name.
      writeFileSync(join(dir, "f.cnf"), dimacsString(encode("cubist-placement", puzzle, { order: "paper" })));
      const other = check(dir, join(dir, "f.cnf"), puzzlePath, "spiral");
      assert.equal(other.code, 1, `${name}: the paper formula is not the spiral one: ${other.out}`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("certificate encoder - a header that lies about the clause count, a missing puzzle and an unknown order are refused with a reason", () => {
  const dir = mkdtempSync(join(tmpdir(), "cubist-cert-encoder-"));
  try {
    const puzzle = PUZZLES[0][1];
    writeFileSync(join(dir, "p.txt"), writeCanonical(puzzle));
    const formula = encode("cubist-placement", puzzle);
    writeFileSync(join(dir, "f.cnf"), dimacsString(formula).replace(/^p cnf (\d+) (\d+)/, (_m, v: string, c: string) => `p cnf ${v} ${Number(c) + 5}`));
    const lying = check(dir, join(dir, "f.cnf"), join(dir, "p.txt"), "paper");
    assert.equal(lying.code, 1);
    assert.match(lying.out, new RegExp(`its header says ${formula.clauses.count + 5} clauses, it has ${formula.clauses.count}`));
    const missing = check(dir, join(dir, "f.cnf"), join(dir, "nope.txt"), "paper");
    assert.equal(missing.code, 1);
    assert.match(missing.out, /^formula: NOT VERIFIED: .*nope\.txt/);
    const usage = spawnSync("python3", [ENCODER, "--order", "sideways", join(dir, "p.txt")], { encoding: "utf8" });
    assert.equal(usage.status, 2);
    assert.match(usage.stderr, /^usage: encode\.py/);
    // Without --check it writes its formula.
    const written = spawnSync("python3", [ENCODER, join(dir, "p.txt")], { encoding: "utf8", maxBuffer: 64 << 20 });
    assert.equal(written.status, 0, written.stderr);
    assert.match(written.stdout, new RegExp(`^p cnf ${formula.numVars} ${formula.clauses.count}\\n`));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
