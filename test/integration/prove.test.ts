/**
 * The proof-producing placement search (engine/prove.c through worker/engine/prove.ts) against the real parts: its
 * LRAT proofs are checked by lrat-check and its DRAT proofs by drat-trim against the cubist-placement formula plus
 * the cube's units, exactly as the coordinator checks a certified cube; its boards are checked by the independent
 * verifier; and which cubes it refutes is cross-checked against the TypeScript placement search (the oracle).
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openBaseCnf, writeCubeCnf } from "../../certify/cnf.js";
import { checkProof } from "../../certify/drat-trim.js";
import { checkCubeProof, checkLratProof } from "../../certify/lrat-check.js";
import { encode, dimacsString } from "../../core/encode/index.js";
import { placementTable } from "../../core/encode/placement-table.js";
import { parsePuzzle } from "../../core/formats/index.js";
import { generatePuzzle } from "../../core/generate.js";
import { searchPlacements } from "../../core/cubes/search.js";
import { rotateEdges, type Placement, type Puzzle } from "../../core/puzzle.js";
import { verifySolution } from "../../core/verify.js";
import { locateProver, proverProblem, runProver } from "../../worker/engine/prove.js";

let dir: string;
before(() => { dir = mkdtempSync(join(tmpdir(), "cubist-prove-")); });
after(() => rmSync(dir, { recursive: true, force: true }));

let files = 0;

/**
 * Runs the prover on `puzzle` with `fixed` placements (a cube) and checks its answer with the real parts: a board
 * must verify and extend the cube; a refutation's proof must pass its checker on formula + the cube's units.
 * `lrat` (the certified path): propagating on that formula, an LRAT proof for lrat-check; `drat`: a DRAT proof for
 * drat-trim; `plain`: DRAT without propagation through the support clauses (a bigger tree, a lemma per node).
 */
async function proveAndCheck(puzzle: Puzzle, fixed: readonly Placement[] = [], mode: "lrat" | "drat" | "plain" = "lrat"): Promise<"sat" | "unsat"> {
  const plain = mode === "plain";
  const formula = encode("cubist-placement", puzzle);
  const units = fixed.flatMap((p) => formula.varMap.placementLiterals(p));
  const table = placementTable(puzzle);
  const n = files++;
  const base = join(dir, `f${n}.base.cnf`);
  const cnf = join(dir, `f${n}.cnf`);
  const proofPath = join(dir, `f${n}.${mode === "lrat" ? "lrat" : "drat"}`);
  writeFileSync(base, dimacsString(formula));
  await writeCubeCnf(await openBaseCnf(base), units, cnf); // the cube's formula, as the coordinator builds it
  const out = await runProver(proverProblem(table, [...table.hintLits, ...units]), { proofPath, support: table.support && !plain, ...(mode === "lrat" ? { cnfPath: cnf } : {}) });
  if (out.kind === "sat") {
    const board = table.decode(out.lits);
    const v = verifySolution(puzzle, board);
    assert.ok(v.ok, `the prover's board verifies: ${JSON.stringify(v)}`);
    // The cube's placement stands (an identical copy of its piece may stand for it: copies are interchangeable).
    for (const p of fixed) {
      const c = board.cells[p.cell]!;
      assert.deepEqual(rotateEdges(puzzle.pieces[c.piece].edges, c.rot), rotateEdges(puzzle.pieces[p.piece].edges, p.rot), `the board keeps the cube on cell ${p.cell}`);
    }
    return "sat";
  }
  assert.equal(out.kind, "unsat", JSON.stringify(out));
  const check = await checkCubeProof(cnf, proofPath);
  assert.equal(check.format, mode === "lrat" ? "lrat" : "drat");
  assert.ok(check.verified, `the ${check.format} checker verifies the prover's refutation (${out.stats.lemmas} lemmas): ${check.detail}`);
  return "unsat";
}

test("prove - refutes the UNSAT fixtures with LRAT proofs lrat-check verifies and DRAT proofs drat-trim verifies", async () => {
  for (const file of ["test/fixtures/cluster/unsat-5x5.txt", "test/fixtures/cluster/unsat-6x6.txt"]) {
    const puzzle = parsePuzzle(readFileSync(file, "utf8"), file);
    assert.equal(await proveAndCheck(puzzle, [], "lrat"), "unsat", file);
    assert.equal(await proveAndCheck(puzzle, [], "drat"), "unsat", file);
    assert.equal(await proveAndCheck(puzzle, [], "plain"), "unsat", file);
  }
});

test("prove - a tampered LRAT proof fails lrat-check: a hint gone, a literal gone, the empty clause gone", async () => {
  const file = "test/fixtures/cluster/unsat-5x5.txt";
  const puzzle = parsePuzzle(readFileSync(file, "utf8"), file);
  const formula = encode("cubist-placement", puzzle);
  const table = placementTable(puzzle);
  const cnf = join(dir, "tamper.cnf");
  const proofPath = join(dir, "tamper.lrat");
  writeFileSync(cnf, dimacsString(formula));
  assert.equal((await runProver(proverProblem(table, table.hintLits), { proofPath, cnfPath: cnf })).kind, "unsat");
  assert.ok((await checkLratProof(cnf, proofPath)).verified, "the untouched proof verifies");
  const lines = readFileSync(proofPath, "utf8").trimEnd().split("\n");
  // The last lemma with literals and several hints: its hints replay a propagation from its decisions, so neither a
  // hint nor a decision can go.
  const at = lines.findLastIndex((l) => !l.includes(" d ") && l.split(" 0 ")[0]!.split(" ").length > 1 && l.split(" 0 ")[1]!.trim().split(" ").length > 2);
  assert.ok(at >= 0);
  const [head, tail] = lines[at]!.split(" 0 ");
  const hints = tail!.trim().split(" ");
  const cases: Record<string, string[]> = {
    "a hint gone": lines.with(at, `${head} 0 ${[...hints.slice(0, 1), ...hints.slice(2)].join(" ")}`),
    "a literal gone": lines.with(at, `${head!.split(" ").slice(0, -1).join(" ")} 0 ${tail}`),
    "the empty clause gone": lines.slice(0, -1),
    // lrat-check itself accepts these two (an empty clause without a conflict); the guard does not.
    "an empty clause without hints": [...lines.slice(0, -1), `${lines.length + 5000} 0 0`],
    "an empty clause whose hints propagate no conflict": lines.with(-1, `${lines.at(-1)!.split(" ")[0]} 0 ${lines.at(-1)!.split(" ").slice(2, 3).join(" ")} 0`),
  };
  for (const [what, tampered] of Object.entries(cases)) {
    const bad = join(dir, "tampered.lrat");
    writeFileSync(bad, tampered.join("\n") + "\n");
    const check = await checkLratProof(cnf, bad);
    assert.equal(check.verified, false, `${what}: must not verify`);
    assert.match(check.detail, /lrat-check did not verify|empty clause/);
  }
});

test("prove - the LRAT prover's hint count is its proof's, and the distinct facts those hints name are fewer", () => {
  const file = "test/fixtures/cluster/unsat-5x5.txt";
  const puzzle = parsePuzzle(readFileSync(file, "utf8"), file);
  const table = placementTable(puzzle);
  const cnf = join(dir, "count.cnf");
  const proofPath = join(dir, "count.lrat");
  writeFileSync(cnf, dimacsString(encode("cubist-placement", puzzle)));
  const run = spawnSync(locateProver(), ["--cnf", cnf, "--lrat", proofPath], { input: proverProblem(table, table.hintLits), encoding: "utf8" });
  assert.equal(run.status, 20, run.stderr);
  const stat = (key: string): number => Number(new RegExp(`^c ${key} (\\d+)$`, "m").exec(run.stdout)?.[1]);
  // An addition line is `ID LIT... 0 HINT... 0`; a deletion line `ID d ID... 0` names no hints.
  const written = readFileSync(proofPath, "utf8").trimEnd().split("\n").filter((l) => !l.includes(" d "))
    .reduce((sum, l) => sum + l.split(" 0 ")[1]!.trim().split(" ").length - 1, 0);
  assert.equal(stat("hints"), written);
  assert.ok(stat("facts") > 0 && stat("facts") < stat("hints"), run.stdout);
});

test("prove - fact lemmas: a shallower literal is derived once and cited after, the proof verifies, and a wrong cite fails", async () => {
  const file = "test/fixtures/cluster/unsat-5x5.txt";
  const puzzle = parsePuzzle(readFileSync(file, "utf8"), file);
  const table = placementTable(puzzle);
  const formula = encode("cubist-placement", puzzle);
  const cnf = join(dir, "facts.cnf");
  writeFileSync(cnf, dimacsString(formula));
  const prove = (uses: number): { stat: (key: string) => number; proof: string } => {
    const proof = join(dir, `facts-${uses}.lrat`);
    const run = spawnSync(locateProver(), ["--cnf", cnf, "--lrat", proof, "--fact-uses", String(uses)], { input: proverProblem(table, table.hintLits), encoding: "utf8" });
    assert.equal(run.status, 20, run.stderr);
    return { stat: (key) => Number(new RegExp(`^c ${key} (\\d+)$`, "m").exec(run.stdout)?.[1]), proof };
  };
  const none = prove(0), some = prove(10);
  // The same search (fact lemmas change the proof, not the tree): more lemmas, fewer hints.
  assert.equal(some.stat("nodes"), none.stat("nodes"));
  assert.ok(some.stat("lemmas") > none.stat("lemmas"), "fact lemmas are written");
  assert.ok(some.stat("hints") < none.stat("hints"), "citing a fact lemma spares hints");
  for (const { proof } of [none, some]) assert.ok((await checkLratProof(cnf, proof)).verified, proof);
  // A lemma's cite of an earlier lemma of two or more literals (a fact lemma or a refuted child's; not a level-0 unit)
  // replaced by a formula clause that is not unit there: the lemma's propagation no longer follows.
  const lines = readFileSync(some.proof, "utf8").trimEnd().split("\n");
  const wide = new Set(lines.filter((l) => !l.includes(" d ") && l.split(" 0 ")[0]!.split(" ").length > 2).map((l) => l.split(" ")[0]!));
  const at = lines.findIndex((l) => !l.includes(" d ") && l.split(" 0 ")[1]!.trim().split(" ").some((h) => wide.has(h)));
  assert.ok(at >= 0, "some lemma cites a lemma");
  const [head, tail] = lines[at]!.split(" 0 ");
  const hints = tail!.trim().split(" ");
  const cite = hints.findIndex((h) => wide.has(h));
  const bad = join(dir, "facts-bad.lrat");
  writeFileSync(bad, lines.with(at, `${head} 0 ${hints.with(cite, "1").join(" ")}`).join("\n") + "\n");
  assert.equal((await checkLratProof(cnf, bad)).verified, false, `${lines[at]} with hint ${hints[cite]} -> 1 must not verify`);
});

test("prove - on cubes of the top-left cells of random boards it answers as the TypeScript search does, each answer checked", async () => {
  let sat = 0;
  let unsat = 0;
  for (let seed = 1; seed <= 12; seed++) {
    const rows = 3 + (seed % 3), cols = 4 + (seed % 2);
    const { puzzle } = generatePuzzle({ rows, cols, borderColors: 2 + (seed % 2), centerColors: 2 + (seed % 3), seed });
    // The cubes: a corner piece on the top-left cell and a top-edge piece beside it (colours matching or not: a
    // cube that contradicts itself is refuted from its units alone).
    const e = (piece: number, rot: number, d: number): number => puzzle.pieces[piece].edges[(d - rot + 4) & 3];
    const fitting = (n: boolean, w: boolean) => (piece: number, rot: number): boolean => (e(piece, rot, 0) === 0) === n && (e(piece, rot, 3) === 0) === w && e(piece, rot, 1) !== 0 && e(piece, rot, 2) !== 0;
    const cubes: Placement[][] = [];
    for (let a = 0; a < puzzle.pieces.length; a++) {
      for (let ra = 0; ra < 4; ra++) {
        if (!fitting(true, true)(a, ra)) continue;
        for (let b = 0; b < puzzle.pieces.length; b++) {
          for (let rb = 0; rb < 4; rb++) {
            if (b !== a && fitting(true, false)(b, rb)) cubes.push([{ cell: 0, piece: a, rot: ra }, { cell: 1, piece: b, rot: rb }]);
          }
        }
      }
    }
    assert.ok(cubes.length > 0);
    for (const cube of cubes.filter((_, i) => i % 5 === seed % 5).slice(0, 8)) {
      const oracle = searchPlacements(puzzle, { fixed: cube });
      assert.notEqual(oracle.kind, "unknown");
      const answer = await proveAndCheck(puzzle, cube);
      assert.equal(answer, oracle.kind, `seed ${seed}, cube ${JSON.stringify(cube)}`);
      if (answer === "sat") sat++;
      else unsat++;
    }
  }
  assert.ok(sat > 0 && unsat > 0, `both answers were exercised (sat ${sat}, unsat ${unsat})`);
});

test("prove - hints are fixed: a puzzle whose hint contradicts every solution is refuted with a checked proof", async () => {
  const { puzzle, solution } = generatePuzzle({ rows: 4, cols: 4, borderColors: 2, centerColors: 3, seed: 11 });
  // The planted solution's own corner as a hint: satisfiable. Turned into another corner cell's piece: refuted or not,
  // the prover's answer must be checked either way, and agree with the oracle.
  const corner = solution.cells[0]!;
  const hinted: Puzzle = { ...puzzle, hints: [{ row: 0, col: 0, piece: corner.piece, rot: corner.rot }] };
  assert.equal(await proveAndCheck(hinted), "sat");
  const other = solution.cells[3]!; // the top-right corner's piece, turned to fit the top-left
  for (let rot = 0; rot < 4; rot++) {
    const e = puzzle.pieces[other.piece].edges;
    if (e[(0 - rot + 4) & 3] !== 0 || e[(3 - rot + 4) & 3] !== 0) continue;
    const wrong: Puzzle = { ...puzzle, hints: [{ row: 0, col: 0, piece: other.piece, rot }] };
    const oracle = searchPlacements(wrong);
    assert.equal(await proveAndCheck(wrong), oracle.kind);
  }
});

test("prove - a proof made with the wrong variables is rejected by drat-trim (the check is not a formality)", async () => {
  const file = "test/fixtures/cluster/unsat-5x5.txt";
  const puzzle = parsePuzzle(readFileSync(file, "utf8"), file);
  const formula = encode("cubist-placement", puzzle);
  const table = placementTable(puzzle);
  const shifted = { ...table, lit: table.lit.map((v) => v + 1) };
  const cnf = join(dir, "shifted.cnf");
  const proofPath = join(dir, "shifted.drat");
  writeFileSync(cnf, dimacsString(formula));
  const out = await runProver(proverProblem(shifted, []), { proofPath });
  assert.equal(out.kind, "unsat");
  const check = await checkProof(cnf, proofPath);
  assert.equal(check.verified, false, "a proof about other variables must not verify");
});

test("prove - bad input is refused with the line it is on; limits and a stop answer unknown", async () => {
  const binary = locateProver();
  const bad = spawnSync(binary, [], { input: "cubist-prove 1\n2 2 1 1\n1\n0 5 1 -1 -1 -1 -1\n0\n", encoding: "utf8" });
  assert.equal(bad.status, 1);
  assert.match(bad.stderr, /stdin line 4: unit out of range/);
  const usage = spawnSync(binary, ["--bogus"], { encoding: "utf8" });
  assert.equal(usage.status, 2);

  const file = "test/fixtures/cluster/unsat-6x6.txt";
  const puzzle = parsePuzzle(readFileSync(file, "utf8"), file);
  const problem = proverProblem(placementTable(puzzle), []);
  const proofPath = join(dir, "limited.drat");
  const ac = new AbortController();
  ac.abort();
  assert.equal((await runProver(problem, { proofPath, signal: ac.signal })).kind, "unknown");
  const limited = spawnSync(binary, ["--proof", proofPath, "--nodes", "1000"], { input: problem, encoding: "utf8" });
  assert.equal(limited.status, 0);
  assert.match(limited.stdout, /^s UNKNOWN$/m);
});
