/**
 * The trees a scan run's portfolio members search (docs/cubing.md "Scan cubes"), pure. A tree is one complete engine
 * scan of the whole board: a line direction (`short` or `long`), mirrored left to right or not (the engine's
 * --mirror), and with the board's symmetry broken, the corner piece pinned (--corner K: the K-th corner piece
 * without a twin). The cubes split one tree, the `short` scan with corner piece 0; the members search the others
 * that `cubist solve` runs on its two cores (cli/solve-local.ts defaultPortfolio): the mirror, and on a square board
 * without hints whose four corner pieces all differ, the seven other trees of the eight (`eightTreeScans` there).
 * Every tree is a complete search: one that is exhausted refutes the whole board.
 *
 * A member's id names its tree, so that a ledger entry says which member it is and a restarted coordinator sends a
 * stopped member on in its own tree: "member-" + order, "-c" + K for a corner piece other than 0, "-m" for the
 * mirror ("member-short-m", "member-short-c2-m"; "member-long" is the long scan, the only member before 2026-11-27).
 */

import { equivalentPieces, pieceKind, type Puzzle } from "../../core/puzzle.js";
import { scanSymmetry, type ScanOrder } from "../../core/cubes/scan-split.js";
import { MEMBER_ID_RE } from "../../proto/contract.js";

export interface ScanTree {
  readonly order: ScanOrder;
  readonly mirror: boolean;
  /** The pinned corner piece, 0-3 (0 without symmetry breaking). */
  readonly corner: number;
}

/** The member id of ledgers written before a run had several members: the long scan. */
export const LEGACY_MEMBER_ID = "member-long";

export function memberId(t: ScanTree): string {
  return `member-${t.order}${t.corner > 0 ? `-c${t.corner}` : ""}${t.mirror ? "-m" : ""}`;
}

/** A tree as words, for logs and reasons: "short, corner piece 2, mirrored". */
export function treeLabel(t: ScanTree): string {
  return [t.order, ...(t.corner > 0 ? [`corner piece ${t.corner}`] : []), ...(t.mirror ? ["mirrored"] : [])].join(", ");
}

/** The tree a member id names, or null for an id that is no member's. */
export function treeOfMember(id: string): ScanTree | null {
  const m = MEMBER_ID_RE.exec(id);
  return m ? { order: m[1] as ScanOrder, corner: m[2] ? Number(m[2]) : 0, mirror: m[3] !== undefined } : null;
}


/**
 * Whether a square board has eight trees: no hints (the symmetry to break) and four corner pieces, none with a twin
 * (the engine's --corner counts the twin-free ones). The same rule as cli/solve-local.ts eightTreeScans.
 */
export function hasEightTrees(puzzle: Pick<Puzzle, "rows" | "cols" | "pieces" | "hints">): boolean {
  if (puzzle.rows !== puzzle.cols || puzzle.hints.length > 0) return false;
  const corners = puzzle.pieces.filter((p) => pieceKind(p) === "corner");
  return corners.length === 4 && corners.every((p) => puzzle.pieces.filter((q) => equivalentPieces(p.edges, q.edges)).length === 1);
}

/**
 * The members' trees of a scan run on `puzzle` (`symmetry`: the run breaks the board's symmetry, so corner pieces
 * may be pinned): the other seven of the eight trees where there are eight, in the order `cubist solve`'s cores meet
 * them (the mirror first), else the mirror of the cubes' scan.
 */
export function memberTrees(puzzle: Pick<Puzzle, "rows" | "cols" | "pieces" | "hints">, symmetry: boolean): ScanTree[] {
  const short = (corner: number, mirror: boolean): ScanTree => ({ order: "short", corner, mirror });
  if (!symmetry || !hasEightTrees(puzzle)) return [short(0, true)];
  return [short(0, true), short(1, false), short(1, true), short(2, false), short(2, true), short(3, false), short(3, true)];
}

/** The share of the workers' time that gives each of `trees` trees (the cubes' one included) the same: (k-1)/k. */
export function equalMemberShare(trees: number): number {
  return trees > 1 ? (trees - 1) / trees : 0;
}

/**
 * A scan run's `--member-share` when none is asked for (its members' trees on `puzzle`, found as a run that looks for
 * one board, not certified, breaks the symmetry: scanSymmetry): every tree the same share of the workers' time, as
 * `cubist solve` gives its trees its cores: 1/2 with the mirror, 7/8 with eight trees.
 */
export function defaultMemberShare(puzzle: Pick<Puzzle, "rows" | "cols" | "pieces" | "hints">): number {
  return equalMemberShare(memberTrees(puzzle, scanSymmetry(puzzle, { certify: false, findOne: true })).length + 1);
}
