/**
 * The native engine's TypeScript side without processes: the problem text (worker/engine/problem.ts), the stdout
 * parser (worker/engine/output.ts), portfolio specs and the first-proof race (worker/engine/portfolio.ts) with
 * scripted contenders. The engine itself runs in test/integration/engine*.test.ts.
 */

import assert from "node:assert/strict";
import { test } from "node:test";
import { readFileSync } from "node:fs";
import { InvalidOptionError } from "../../core/errors.js";
import type { Placement, Puzzle } from "../../core/puzzle.js";
import { EngineOutputError, EngineOutputParser, type EngineProgress } from "../../worker/engine/output.js";
import { engineProblem } from "../../worker/engine/problem.js";
import { firstProof, memberName, memberThreads, parsePortfolio, type Contender } from "../../worker/engine/portfolio.js";
import { defaultPortfolio, eightTreeScans } from "../../cli/solve-local.js";
import { generatePuzzle } from "../../core/generate.js";
import { log10ExpectedSolutions, MANY_SOLUTIONS_LOG10 } from "../../core/solution-estimate.js";
import { readBrendan } from "../../core/formats/index.js";

/** A 2x2 bounded puzzle (four corners) with one hint: piece 2 at (1,1) turned twice. */
const PUZZLE: Puzzle = {
  rows: 2,
  cols: 2,
  pieces: [
    { id: 1, edges: [0, 1, 2, 0] },
    { id: 2, edges: [0, 0, 3, 1] },
    { id: 3, edges: [2, 4, 0, 0] },
    { id: 4, edges: [3, 0, 0, 4] },
  ],
  hints: [{ row: 1, col: 1, piece: 1, rot: 2 }],
};

const at = (cell: number, piece: number, rot: number): Placement => ({ cell, piece, rot });

test("engine problem - header, size, one N E S W line per piece, then hints first and the fixed placements", () => {
  const text = engineProblem(PUZZLE, [at(0, 0, 0), at(2, 2, 3)]);
  assert.equal(text, "cubist-engine 1\n2 2\n0 1 2 0\n0 0 3 1\n2 4 0 0\n3 0 0 4\n3\n3 1 2\n0 0 0\n2 2 3\n");
  assert.equal(engineProblem({ ...PUZZLE, hints: [] }, []), "cubist-engine 1\n2 2\n0 1 2 0\n0 0 3 1\n2 4 0 0\n3 0 0 4\n0\n");
});

test("engine problem - a placement given twice (or repeating a hint) is kept once", () => {
  const text = engineProblem(PUZZLE, [at(0, 0, 1), at(0, 0, 1), at(3, 1, 2)]);
  assert.equal(text, "cubist-engine 1\n2 2\n0 1 2 0\n0 0 3 1\n2 4 0 0\n3 0 0 4\n2\n3 1 2\n0 0 1\n");
});

test("engine problem - contradicting placements are null: a cell twice, a piece twice, against a hint, out of range", () => {
  const contradictions: Array<[string, Placement[]]> = [
    ["one cell, two pieces", [at(0, 0, 0), at(0, 2, 0)]],
    ["one cell, two rotations", [at(0, 0, 0), at(0, 0, 1)]],
    ["one piece on two cells", [at(0, 0, 0), at(1, 0, 0)]],
    ["the hint's cell with another piece", [at(3, 0, 2)]],
    ["the hint's cell with another rotation", [at(3, 1, 0)]],
    ["the hint's piece elsewhere", [at(0, 1, 2)]],
    ["cell out of range", [at(4, 0, 0)]],
    ["negative cell", [at(-1, 0, 0)]],
    ["piece out of range", [at(0, 4, 0)]],
    ["rotation 4", [at(0, 0, 4)]],
    ["negative rotation", [at(0, 0, -1)]],
    ["fractional cell", [at(0.5, 0, 0)]],
    ["NaN piece", [at(0, Number.NaN, 0)]],
  ];
  for (const [what, fixed] of contradictions) assert.equal(engineProblem(PUZZLE, fixed), null, what);
  // Hints that contradict each other are caught the same way.
  const twoHints: Puzzle = { ...PUZZLE, hints: [...PUZZLE.hints, { row: 0, col: 0, piece: 1, rot: 0 }] };
  assert.equal(engineProblem(twoHints, []), null);
});

/** A parser for a 2x2 board fed `chunks`, with everything it reported. */
function parse(chunks: string[], cells = 4, pieces = 4): { parser: EngineOutputParser; progress: EngineProgress[]; boards: Placement[][] } {
  const progress: EngineProgress[] = [];
  const boards: Placement[][] = [];
  const parser = new EngineOutputParser(cells, pieces, (p) => progress.push(p), (b) => boards.push(b));
  for (const c of chunks) parser.push(c);
  parser.end();
  return { parser, progress, boards };
}

const STATS = "c nodes 1234\nc seconds 0.5\nc rate 2468\nc solutions 2\nc end exhausted\nc restarts 3\nc depth 3 of 4\n";

test("engine output - status, boards, statistics and progress, however the text is chunked", () => {
  const text = `c progress nodes=10 seconds=0.100 depth=2 of=4\ns SATISFIABLE\nv 0 1 0 1 0 3 2 2 1 3 3 2\nv 3 3 2 2 2 1 1 1 0 0 0 0\n${STATS}c part 0/2 depth 1\n`;
  for (const size of [1, 3, 7, text.length]) {
    const chunks: string[] = [];
    for (let i = 0; i < text.length; i += size) chunks.push(text.slice(i, i + size));
    const { parser, progress, boards } = parse(chunks);
    assert.equal(parser.status, "sat");
    assert.deepEqual(parser.boards, boards);
    assert.deepEqual(boards[0], [at(0, 1, 0), at(1, 0, 3), at(2, 2, 1), at(3, 3, 2)]);
    assert.deepEqual(boards[1], [at(0, 0, 0), at(1, 1, 0), at(2, 2, 1), at(3, 3, 2)], "indexed by cell, in any order on the line");
    assert.deepEqual(parser.stats, { nodes: 1234, seconds: 0.5, solutions: 2, restarts: 3, end: "exhausted", depth: 3, of: 4 });
    assert.deepEqual(progress, [{ nodes: 10, seconds: 0.1, depth: 2, of: 4 }]);
  }
  // The last line may come without its newline; an UNSAT and an UNKNOWN answer carry no board.
  assert.equal(parse(["s UNSATISFIABLE\nc nodes 0\nc end exhausted"]).parser.stats.end, "exhausted");
  const unknown = parse(["s UNKNOWN\r\n", "c nodes 77\nc end time-limit\n"]).parser;
  assert.equal(unknown.status, "unknown");
  assert.deepEqual([unknown.stats.nodes, unknown.stats.end, unknown.boards.length], [77, "time-limit", 0]);
});

test("engine output - progress lines raise the node count seen so far, and odd comments are ignored", () => {
  const { parser, progress } = parse(["c progress nodes=5 seconds=1 depth=1 of=4\nc progress nodes=9 junk seconds=2\nc fixed piece 1 at cell 0 does not fit the rim\n"]);
  assert.equal(parser.stats.nodes, 9);
  assert.deepEqual(progress.map((p) => p.nodes), [5, 9]);
  assert.equal(parser.status, null);
});

test("engine output - malformed lines and boards that do not name every cell once are EngineOutputErrors", () => {
  const bad: Array<[string, RegExp]> = [
    ["s MAYBE\n", /unknown status line 's MAYBE'/],
    ["hello\n", /unexpected engine output line 'hello'/],
    [" s SATISFIABLE\n", /unexpected engine output line/],
    ["v 0 0 0 1 1 0 2 2 0\n", /a board line with 3 placements for 4 cells/],
    ["v 0 0 0 1 1 0 2 2 0 3 3 0 4\n", /placements for 4 cells/],
    ["v\n", /placements for 4 cells/],
    ["v 0 0 0 0 1 0 2 2 0 3 3 0\n", /names cell 0 twice or out of range/],
    ["v 0 0 0 1 1 0 2 2 0 4 3 0\n", /names cell 4 twice or out of range/],
    ["v 0 0 0 1 1 0 2 2 0 -1 3 0\n", /names cell -1/],
    ["v 0 0 0 1 1 0 2 2 0 3 4 0\n", /names piece 4 out of range/],
    ["v 0 0 0 1 1 0 2 2 0 3 x 0\n", /names piece NaN out of range/],
    ["v 0 0 0 1 1 0 2 2 0 3 3 4\n", /has rotation 4/],
    ["v 0 0 0 1 1 0 2 2 0 3 3 1.5\n", /has rotation 1.5/],
    ["c resume-from \n", /a malformed resume-from line/],
    ["c resume-from 1,,2\n", /a malformed resume-from line/],
    ["c resume-from 1,-2\n", /a malformed resume-from line/],
    ["c resume-from 1,2147483648\n", /a malformed resume-from line/],
  ];
  for (const [text, message] of bad) {
    assert.throws(() => parse([text]), (err: unknown) => err instanceof EngineOutputError && message.test(err.message), JSON.stringify(text));
  }
  assert.deepEqual(parse(["c resume-from 3,0,2147483647\n"]).parser.stats.resumeFrom, [3, 0, 2 ** 31 - 1]);
  const parser = new EngineOutputParser(4, 4);
  assert.throws(() => parser.push("c ".padEnd((1 << 20) + 10, "x")), /longer than 1048576 bytes/);
});

test("portfolio spec - members, options and the names they print as", () => {
  const members = parsePortfolio(" short , spiral:r100000:s1 ,kissat, long:p4,cadical,sat,border:s7,row,col:r5 ,");
  assert.deepEqual(members, [
    { kind: "engine", order: "short", seed: 0, restartBase: 0, parts: 1 },
    { kind: "engine", order: "spiral", seed: 1, restartBase: 100000, parts: 1 },
    { kind: "sat" },
    { kind: "engine", order: "long", seed: 0, restartBase: 0, parts: 4 },
    { kind: "sat" },
    { kind: "sat" },
    { kind: "engine", order: "border", seed: 7, restartBase: 0, parts: 1 },
    { kind: "engine", order: "row", seed: 0, restartBase: 0, parts: 1 },
    { kind: "engine", order: "col", seed: 0, restartBase: 5, parts: 1 },
  ]);
  assert.deepEqual(members.map(memberName), ["short", "spiral:s1:r100000", "sat", "long:p4", "sat", "sat", "border:s7", "row", "col:r5"]);
  assert.deepEqual(members.map(memberThreads), [1, 1, 1, 4, 1, 1, 1, 1, 1]);
  // A name parses back to the same member.
  for (const m of members) if (m.kind === "engine") assert.deepEqual(parsePortfolio(memberName(m)), [m]);
  const corners = parsePortfolio("short:m,short:a4194304,long:a10:m:s3");
  assert.deepEqual(corners, [
    { kind: "engine", order: "short", seed: 0, restartBase: 0, parts: 1, mirror: true },
    { kind: "engine", order: "short", seed: 0, restartBase: 0, parts: 1, alternate: 4194304 },
    { kind: "engine", order: "long", seed: 3, restartBase: 0, parts: 1, alternate: 10, mirror: true },
  ]);
  assert.deepEqual(corners.map(memberName), ["short:m", "short:a4194304", "long:m:a10:s3"]);
  for (const m of corners) assert.deepEqual(parsePortfolio(memberName(m)), [m]);
  const pieces = parsePortfolio("short:c2:m,short:a4194304:t0+1m+2+3m");
  assert.deepEqual(pieces, [
    { kind: "engine", order: "short", seed: 0, restartBase: 0, parts: 1, corner: 2, mirror: true },
    { kind: "engine", order: "short", seed: 0, restartBase: 0, parts: 1, alternate: 4194304, scans: ["0", "1m", "2", "3m"] },
  ]);
  assert.deepEqual(pieces.map(memberName), ["short:m:c2", "short:a4194304:t0+1m+2+3m"]);
  for (const m of pieces) assert.deepEqual(parsePortfolio(memberName(m)), [m]);
  assert.deepEqual(parsePortfolio("short:p1:p256"), [{ kind: "engine", order: "short", seed: 0, restartBase: 0, parts: 256 }]);
});

test("portfolio spec - bad specs are InvalidOptionErrors that say what is wrong", () => {
  const bad: Array<[string, RegExp]> = [
    ["", /^portfolio: no members$/],
    [" , ,", /no members/],
    ["diagonal", /unknown member 'diagonal' \(known: short, long, row, col, spiral, border, mcf, kissat\)/],
    ["Short", /unknown member 'Short'/],
    ["short,spiral:x1", /bad option 'x1' in 'spiral:x1' \(m, a<turn nodes>, t<scans>, c<corner>, s<seed>, r<restart nodes>, p<processes>\)/],
    ["short:c4", /c4: the corner piece is 0-3/],
    ["short:t0+0m", /'short:t0\+0m': t<scans> lists the scans of a<turn nodes>/],
    ["short:a100:t0+4", /bad scans 't0\+4'/],
    ["short:a100:t0,1", /unknown member '1'/],
    ["short:a100:t0+0m+1+1m+2+2m+3+3m+0", /bad scans/],
    ["short:m1", /bad option 'm1'/],
    ["short:a", /bad option 'a'/],
    ["short:a1000:p2", /'short:a1000:p2': an alternating member is two complete scans: not split over processes or restarting/],
    ["long:r10:a5", /an alternating member is two complete scans/],
    ["short:s", /bad option 's' in 'short:s'/],
    ["short:s-1", /bad option 's-1'/],
    ["short:s1.5", /bad option 's1.5'/],
    ["short: s1", /bad option ' s1'/],
    ["short:", /bad option '' in 'short:'/],
    ["short:s99999999999999999999", /bad option 's99999999999999999999'/],
    ["short:p0", /p0: between 1 and 256 processes/],
    ["short:p257", /p257: between 1 and 256 processes/],
    ["short:p2:r10", /'short:p2:r10': a member split over processes cannot restart/],
    ["kissat:s1", /the SAT member 'kissat:s1' takes no options/],
    ["cadical:p2", /the SAT member 'cadical:p2' takes no options/],
  ];
  for (const [spec, message] of bad) {
    assert.throws(() => parsePortfolio(spec), (err: unknown) => err instanceof InvalidOptionError && err.option === "portfolio" && message.test(err.message), spec);
  }
});

/** A contender that answers `result` after `ms` unless stopped first (then it answers "stopped" after `stopMs`). */
function scripted(name: string, result: string, ms: number, log: string[], stopMs = 0): Contender<string> {
  return {
    name,
    decided: (r) => r === "sat" || r === "unsat",
    run: (signal) =>
      new Promise<string>((resolve, reject) => {
        if (result === "throw") return void setTimeout(() => reject(new Error(`${name} broke`)), ms);
        const onAbort = (): void => {
          clearTimeout(timer);
          log.push(`${name} stopped`);
          setTimeout(() => resolve("stopped"), stopMs);
        };
        const timer = setTimeout(() => {
          signal.removeEventListener("abort", onAbort);
          log.push(`${name} answered`);
          resolve(result);
        }, ms);
        if (signal.aborted) onAbort();
        else signal.addEventListener("abort", onAbort, { once: true });
      }),
  };
}

test("portfolio race - the first decided result wins, the others are stopped and awaited", async () => {
  const log: string[] = [];
  const started = performance.now();
  const { winner, entries } = await firstProof([
    scripted("slow", "sat", 10_000, log),
    scripted("gives-up", "unknown", 5, log),
    scripted("fast", "unsat", 40, log),
    scripted("lingering", "sat", 10_000, log, 60),
  ]);
  assert.ok(performance.now() - started < 5_000);
  assert.equal(winner?.name, "fast");
  assert.equal(winner?.result, "unsat");
  assert.deepEqual(entries.map((e) => [e.name, e.result]), [["slow", "stopped"], ["gives-up", "unknown"], ["fast", "unsat"], ["lingering", "stopped"]]);
  // The lingering contender settled before firstProof returned.
  assert.deepEqual([...log].sort(), ["fast answered", "gives-up answered", "lingering stopped", "slow stopped"]);
});

test("portfolio race - errors are collected, undecided results never win, a later decided result is not the winner", async () => {
  const log: string[] = [];
  const { winner, entries } = await firstProof([scripted("broken", "throw", 5, log), scripted("unknown", "unknown", 10, log)]);
  assert.equal(winner, null);
  assert.equal(entries[0].error?.message, "broken broke");
  assert.equal(entries[0].result, undefined);
  assert.equal(entries[1].result, "unknown");

  // Two that decide: the one that answers first wins; one that ignores the stop and proves later is not the winner.
  const deaf: Contender<string> = { name: "b", decided: () => true, run: () => new Promise((resolve) => setTimeout(() => resolve("unsat"), 60)) };
  const both = await firstProof([scripted("a", "sat", 20, []), deaf, scripted("c", "throw", 1, [])]);
  assert.equal(both.winner?.name, "a");
  assert.equal(both.entries[1].result, "unsat");
  assert.match(both.entries[2].error?.message ?? "", /c broke/);
  assert.deepEqual(await firstProof([]), { winner: null, entries: [] });
});

test("portfolio race - the caller's abort stops every contender and nobody wins", async () => {
  const log: string[] = [];
  const stop = new AbortController();
  setTimeout(() => stop.abort(), 30);
  const { winner, entries } = await firstProof([scripted("x", "sat", 10_000, log), scripted("y", "unsat", 10_000, log, 20)], stop.signal);
  assert.equal(winner, null);
  assert.deepEqual(entries.map((e) => e.result), ["stopped", "stopped"]);

  // Aborted before the start: every contender sees an aborted signal at once.
  const seen: boolean[] = [];
  const pre = await firstProof(
    [0, 1].map((i): Contender<string> => ({ name: `c${i}`, decided: () => true, run: async (s) => { seen.push(s.aborted); return "sat"; } })),
    AbortSignal.abort(),
  );
  assert.deepEqual(seen, [true, true]);
  assert.equal(pre.winner, null);
});

test("default portfolio - near-unique square boards: the eight trees take turns, all on one core, four on each of two", () => {
  const file = new URL("../fixtures/brendan/pieces_06x06.txt", import.meta.url);
  const board = readBrendan(readFileSync(file, "utf8"), "6x6");
  const names = (threads: number): string[] => defaultPortfolio(threads, board).map(memberName);
  assert.deepEqual(names(1), ["short:a4194304:t0+0m+1m+1+2+2m+3m+3"]);
  assert.deepEqual(names(2), ["short:a4194304:t0+1m+2+3m", "short:a4194304:t0m+1+2m+3"]);
  assert.deepEqual(names(3), ["short", "short:m", "sat"]);
  assert.deepEqual(names(6), ["short", "short:m", "long", "long:m", "short:s4", "sat"]);
});

test("default portfolio - near-unique boards without eight trees: the scan and its mirror alternate on one core, each gets a core on two", () => {
  const file = new URL("../fixtures/brendan/pieces_06x06.txt", import.meta.url);
  const square = readBrendan(readFileSync(file, "utf8"), "6x6");
  const corners = square.pieces.filter((p) => p.edges.filter((c) => c === 0).length === 2);
  const oblong = generatePuzzle({ rows: 6, cols: 5, borderColors: 3, centerColors: 8, seed: 1 }).puzzle;
  assert.ok(log10ExpectedSolutions(oblong) < MANY_SOLUTIONS_LOG10);
  const boards: Record<string, Puzzle> = {
    oblong,
    hinted: { ...square, hints: [{ row: 2, col: 2, piece: 20, rot: 0 }] },
    /* a corner piece's twin: `--corner` pins twin-free corner pieces only, three here */
    twin: { ...square, pieces: square.pieces.map((p) => (p === corners[1] ? { ...p, edges: corners[0].edges } : p)) },
  };
  for (const [what, board] of Object.entries(boards)) {
    assert.equal(eightTreeScans(board), null, what);
    const names = (threads: number): string[] => defaultPortfolio(threads, board).map(memberName);
    assert.deepEqual(names(1), ["short:a4194304"], what);
    assert.deepEqual(names(2), ["short", "short:m"], what);
  }
});
