/**
 * One cube of a run's cube table (coordinator/model/cube-table.ts): its placements, packed small, its weight and its
 * state, and what a cube id says of its place in the tree of re-splits. Pure.
 */

import type { CubePart, PartProgress } from "../../core/cubes/types.js";
import type { Placement } from "../../core/puzzle.js";
import { weightOf } from "../../core/cubes/weight.js";
import type { CubeStateName } from "../../proto/vocabulary.js";

/**
 * The states the table keeps; "running" and "purged" are views of queued cubes (coordinator/serve/views.ts), which the
 * API's CubeState (proto) names too.
 */
export type CubeEntryState = Exclude<CubeStateName, "running" | "purged">;

/** Placements packed one number each (cell << 12 | piece << 2 | rot): 200,000 cubes stay small in memory. */
function pack(p: Placement): number {
  return p.cell * 4096 + p.piece * 4 + p.rot;
}

function unpack(x: number): Placement {
  return { cell: Math.floor(x / 4096), piece: (x >> 2) & 1023, rot: x & 3 };
}

/**
 * Branching lists are shared: cubes of one split mostly have the same list (the branching factors along their path),
 * so the table keeps one frozen copy of each, with its weight, instead of one per cube (about 90 bytes a cube at
 * Eternity II size). Bounded, so that a table of all-different lists does not pay for the index.
 */
const SHARED_LISTS = new Map<string, { branching: readonly number[]; weight: number }>();
const MAX_SHARED_LISTS = 65_536;

function sharedList(branching: readonly number[]): { branching: readonly number[]; weight: number } {
  const key = branching.join(",");
  const known = SHARED_LISTS.get(key);
  if (known) return known;
  const fresh = { branching: Object.freeze([...branching]), weight: weightOf(branching) };
  if (SHARED_LISTS.size < MAX_SHARED_LISTS) SHARED_LISTS.set(key, fresh);
  return fresh;
}

/** A cube as the table keeps it. Read-only: only the cube table changes it, as the run's ledger says. */
export interface CubeEntry {
  readonly id: string;
  /** Its share of the search space (core/cubes/weight.ts): the weights of the open and closed cubes sum to 1. */
  readonly weight: number;
  readonly state: CubeEntryState;
  /** Unknown verdicts so far (the re-split policy counts them). */
  readonly unknowns: number;
  /** Error verdicts so far (since it was last resumed from failed). */
  readonly errors: number;
  /** The distinct workers those error verdicts came from (a cube fails on several, not on one bad worker). */
  readonly errorWorkers?: readonly string[];
  /** Stream sequence of its current task message (0 when unknown), to delete it when the cube is given up. */
  readonly seq: number;
  /** The lease its current task carries (coordinator/model/leases.ts); "" when recorded before leases. */
  readonly lease: string;
  /**
   * How far its searches got (scan cubes; the furthest an unknown verdict reported): its re-split's parts and its
   * next attempt start there (docs/cubing.md "Resuming").
   */
  readonly progress?: PartProgress;
  /** Who closed it, and how long the deciding solver ran. */
  readonly worker?: string;
  readonly wallMs?: number;
  readonly reason?: string;
  readonly branching: readonly number[];
  /** A part of the placements' subtree (scan cubes in parts); undefined: all of it. */
  readonly part?: CubePart;
  /** The cube's placements (decoded on each read). */
  readonly placements: Placement[];
  readonly placementCount: number;
}

/** The table's own, changeable record of a cube (coordinator/model/cube-table.ts hands it out as a CubeEntry). */
export class CubeRecord implements CubeEntry {
  private readonly packed: number[];
  private readonly shared: { readonly branching: readonly number[]; readonly weight: number };
  state: CubeEntryState = "queued";
  /** Unknown verdicts so far (the re-split policy counts them). */
  unknowns = 0;
  /** Error verdicts so far (since it was last resumed from failed). */
  errors = 0;
  /** The distinct workers those error verdicts came from (a cube fails on several, not on one bad worker). */
  errorWorkers?: string[];
  /** Stream sequence of its current task message (0 when unknown), to delete it when the cube is given up. */
  seq: number;
  /** The lease its current task carries (coordinator/model/leases.ts); "" when recorded before leases. */
  lease: string;
  /**
   * How far its searches got (scan cubes; the furthest an unknown verdict reported): its re-split's parts and its
   * next attempt start there (docs/cubing.md "Resuming").
   */
  progress?: PartProgress;
  /** Who closed it, and how long the deciding solver ran. */
  worker?: string;
  wallMs?: number;
  reason?: string;

  constructor(
    readonly id: string,
    placements: readonly Placement[],
    branching: readonly number[],
    seq: number,
    lease = "",
    /** A part of the placements' subtree (scan cubes in parts); undefined: all of it. */
    readonly part?: CubePart,
  ) {
    for (const p of placements) {
      if (p.cell >= 1 << 19 || p.piece >= 1024 || p.rot > 3) throw new Error(`cube ${id}: placement out of range`);
    }
    this.packed = placements.map(pack);
    this.shared = sharedList(branching);
    this.seq = seq;
    this.lease = lease;
  }

  get branching(): readonly number[] {
    return this.shared.branching;
  }

  get weight(): number {
    return this.shared.weight;
  }

  /** The cube's placements (decoded on each call). */
  get placements(): Placement[] {
    return this.packed.map(unpack);
  }

  get placementCount(): number {
    return this.packed.length;
  }
}

/** The initial cube a cube descends from: its id up to the first ".". */
export function subtreeOf(id: string): string {
  const dot = id.indexOf(".");
  return dot < 0 ? id : id.slice(0, dot);
}

/** Re-split generations above a cube (0: an initial cube). */
export function resplitDepth(id: string): number {
  let n = 0;
  for (let i = id.indexOf("."); i >= 0; i = id.indexOf(".", i + 1)) n++;
  return n;
}

/** A cube still to be decided: queued (maybe running somewhere) or unknown. */
export function isOpen(e: Pick<CubeEntry, "state">): boolean {
  return e.state === "queued" || e.state === "unknown";
}
