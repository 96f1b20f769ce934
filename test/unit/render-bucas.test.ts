import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

import { readBrendan, readBrendanSolution } from "../../core/formats/brendan.js";
import type { Board, Edges, Piece, Puzzle } from "../../core/puzzle.js";
import { bucasBoardEdges, bucasBoardPieces, bucasLink, BUCAS_VIEWER_URL } from "../../core/render/bucas.js";
import { verifySolution, scoreBoard } from "../../core/verify.js";
import { InvalidOptionError } from "../../core/errors.js";

const fixture = (path: string): string => readFileSync(fileURLToPath(new URL(`../fixtures/${path}`, import.meta.url)), "utf8");

/**
 * Two raw parameter strings of the viewer's own board list (jfbucas/eternityII-viewer init.js
 * `puzzles_urls`, kept in shared/instances/eternity2/orig/bucas_viewer_board_urls.txt). Both use the
 * default motifs order (colour k = chr(97 + k)).
 */
const RAW_SAMPLE_4X4 =
  "puzzle=Sample_4x4&board_w=4&board_h=4&board_edges=ajjaajojaetjaaeejoeaootottooeajteojattoootttjajtjeaaoeaeteae" +
  "jaae&board_pieces=000001002003004005006007008009010011012013014015&board_types=bccbcddccddcbccb";

const RAW_LOUIS_VERHAARD_467 =
  "puzzle=Louis_Verhaard_467&board_w=16&board_h=16&board_edges=abeaacsbabpcafubacrfadpcaftdabtfafjbaemfaboeacvbae" +
  "ncafoeadofaabdendasvpnphtvuqlhlvmqpsuvhwustqqwjhhwmrmhopprvwppnspwoqwsoqnqbaeqdufaplouthjllsnhuvusuwovuwswqlhw" +
  "hjummlljwvvlrnkvpgnnwvjgmtrveadtfqfaovjqjnnvnsnnuhlsmorhsujohhruunhhlqttvvitkvwvntovjtrurwhtdafwfhbajqphnouqnp" +
  "mollkprqwljklqrvwkhnlvtmqniommwmsookqmrwpkokuwfackbjfapjijuoujmnlokounwuiolkvuwhqklghhqmqgmupmsrtuqpqrpjppuhsj" +
  "cabhfhcaiqphunrqlktnuvtkijvvvomjqtjohustqrlupnqrtkknqtjkpjttshvjbachcrbaphkrrphhtwhptwvwvwlwmulwjsiusphslmtpqh" +
  "wmkprhjnmptqvnvprqcacpbteakvrthunvhwkuvlrwlwollmnwijjmhukjtmsuwuhmrhoumkqhvkokrvmkcafvepcarsjpntkskmttrwmmoklw" +
  "nhskjnthkpgnskpphvrkoknvqjskovmjmujvfafucnfajronkmnrtrsmmorrlugosgrutrkgglorplulrlslnkolsmwkmsomjgisfafgfqeaos" +
  "nqnplsstoprqrtgtnqrgrtkoggoiqouksissskoiiswquioriqilirfaelepdanigpllkiogllringnjmirijjggjiqiigsouislgoijjlurij" +
  "ilpriwileadwdhdagimhkkgilqikngwqmtlgjistjnviiomnuvgogsgvjwgsinqwpgtniiwgdadidgdampqggmspiwpmwvgwlgvvsqugvgtqmk" +
  "iggrjkgtmrgigtqwoitgiwwstgdadsdcaaqeacseaepbaegbabveabueaeteaeibaejbabmdabgcadocacidactcaddaac&board_pieces=00" +
  "20240110570230310560130520390100250400530300010412401261292192501362511041162432472392452350450352111061122542" +
  "46255135109167221203077099232034055175169233113115171102103213160206241178125060050108234226191215165195118228" +
  "15222919319620201700814218021019015420512106308322525324817312200605110523820020114418217013021823718316617913" +
  "10150221111011202562222201611242091341101682422490200122041281332162072081391272301171191141881940590431741981" +
  "86223184123107076192132187177172181058018176185231227078087095071212214189197224068049054236217244252093086062" +
  "15516219913716415614603804408114807008415014006108215807913814314914703602806706614509707515914115308008808915" +
  "1092065029027073074163100096090094072085091064157069098032004021046042005014048047037007009026019016033003";

function params(raw: string): Map<string, string> {
  return new Map(raw.split("&").map((kv) => kv.split("=") as [string, string]));
}

function e2Puzzle(): Puzzle {
  const pieces: Piece[] = [];
  for (const line of fixture("eternity2/e2_pieces.txt").split("\n")) {
    const body = line.replace(/#.*/, "").trim();
    if (body === "") continue;
    const [id, n, e, s, w] = body.split(/\s+/).map(Number);
    pieces.push({ id, edges: [n, e, s, w] as Edges });
  }
  return { rows: 16, cols: 16, pieces, hints: [], name: "eternity2" };
}

/** A board of e2_reference_boards.txt by name (official ids -> indices id - 1). */
function e2ReferenceBoard(name: string): { board: Board; score: number } {
  const lines = fixture("eternity2/e2_reference_boards.txt").split("\n");
  const at = lines.findIndex((l) => l.startsWith(`## ${name} `));
  assert.ok(at >= 0, name);
  const cells = lines
    .slice(at + 1, at + 17)
    .flatMap((l) => l.trim().split(/\s+/))
    .map((t) => {
      const [id, rot] = t.split("/").map(Number);
      return { piece: id - 1, rot };
    });
  return { board: { rows: 16, cols: 16, cells }, score: Number(/score=(\d+)/.exec(lines[at])![1]) };
}

test("bucas link - a reference board re-creates the viewer's own Louis_Verhaard_467 link", () => {
  const puzzle = e2Puzzle();
  const { board, score } = e2ReferenceBoard("Louis_Verhaard_467");
  assert.equal(scoreBoard(puzzle, board), score);
  const raw = params(RAW_LOUIS_VERHAARD_467);
  assert.equal(bucasBoardEdges(puzzle, board), raw.get("board_edges"));
  assert.equal(bucasBoardPieces(puzzle, board), raw.get("board_pieces"), "official numbers = piece ids");
  assert.equal(bucasLink(puzzle, board, { name: "Louis_Verhaard_467" }), `${BUCAS_VIEWER_URL}#${RAW_LOUIS_VERHAARD_467}`);
  assert.equal(BUCAS_VIEWER_URL, "https://e2.bucas.name/");
});

test("bucas link - the Sample_4x4 link decodes (up right down left per cell) to a solved board and re-encodes", () => {
  const raw = params(RAW_SAMPLE_4X4);
  const w = Number(raw.get("board_w")), h = Number(raw.get("board_h"));
  const letters = raw.get("board_edges")!;
  assert.equal(letters.length, 4 * w * h);
  const pieces: Piece[] = [];
  for (let s = 0; s < w * h; s++) {
    const e = [...letters.slice(4 * s, 4 * s + 4)].map((ch) => ch.charCodeAt(0) - 97);
    pieces.push({ id: s + 1, edges: e as unknown as Edges });
  }
  const puzzle: Puzzle = { rows: h, cols: w, pieces, hints: [] };
  const board: Board = { rows: h, cols: w, cells: pieces.map((_, i) => ({ piece: i, rot: 0 })) };
  // Read as N E S W, cells row-major from the top-left, the viewer's board is a valid solution.
  assert.deepEqual(verifySolution(puzzle, board), { ok: true });
  assert.equal(
    bucasLink(puzzle, board, { name: "Sample_4x4", pieceNumbers: "index" }),
    `${BUCAS_VIEWER_URL}#${RAW_SAMPLE_4X4.replace(/&board_types=[a-e]+$/, "")}`,
  );
});

test("bucas link - any board size, empty cells, names and options", () => {
  const puzzle = readBrendan(fixture("brendan/pieces_04x04.txt"), "pieces_04x04.txt");
  const board = readBrendanSolution(fixture("brendan/solutions_04x04.txt"), "solutions_04x04.txt", puzzle);
  const partial: Board = { ...board, cells: board.cells.map((c, i) => (i === 0 ? null : c)) };
  const link = bucasLink(puzzle, partial, { showPieceNumbers: true });
  const p = params(link.slice(link.indexOf("#") + 1));
  assert.deepEqual([...p.keys()], ["puzzle", "board_w", "board_h", "board_edges", "board_pieces", "show_piecenumber"]);
  assert.equal(p.get("puzzle"), "pieces_04x04");
  assert.equal(p.get("board_w"), "4");
  assert.equal(p.get("board_h"), "4");
  assert.equal(p.get("board_edges")!.length, 64);
  assert.equal(p.get("board_edges")!.slice(0, 8), "aaaaacfc", "empty cell, then piece 12 rot 0 (N0 E2 S5 W2)");
  assert.equal(p.get("board_pieces")!.slice(0, 9), "000012010");
  assert.equal(p.get("show_piecenumber"), "1");
  const wide: Board = { rows: 2, cols: 8, cells: board.cells };
  assert.match(bucasLink(puzzle, wide, { name: "odd name/with+chars" }), /#puzzle=odd_name_with_chars&board_w=8&board_h=2&/);
});

test("bucas link - colours without a letter and piece numbers over 999 are refused", () => {
  const puzzle: Puzzle = {
    rows: 2, cols: 2, hints: [],
    pieces: [
      { id: 1, edges: [26, 1, 1, 1] }, { id: 2, edges: [1, 1, 1, 1] },
      { id: 3, edges: [1, 1, 1, 1] }, { id: 1000, edges: [1, 1, 1, 1] },
    ],
  };
  const board: Board = { rows: 2, cols: 2, cells: [{ piece: 0, rot: 0 }, { piece: 1, rot: 0 }, { piece: 2, rot: 0 }, { piece: 3, rot: 0 }] };
  assert.throws(() => bucasBoardEdges(puzzle, board), InvalidOptionError);
  assert.throws(() => bucasBoardPieces(puzzle, board), /piece number 1000/);
  assert.equal(bucasBoardPieces(puzzle, board, "index"), "000001002003");
});
