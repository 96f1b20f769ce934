/**
 * The cubes this worker is working on, one per busy slot: what status heartbeats report and what cancels,
 * run-state changes and shutdown stop. Stopping a cube aborts its AbortSignal (the placement search thread is
 * terminated, the solver's process group gets SIGTERM then SIGKILL) and records why, which decides what happens
 * to its task: handed back (nak) for a pause or a shutdown, acked otherwise.
 */

import type { RunningCube } from "../proto/gen/cubist/v1/cube.js";
import { leaseProof } from "../proto/lease-proof.js";
import { PAUSE_NOW } from "./cancels.js";

/** Where a cube is in its slot. */
export type CubePhase = "formula" | "search" | "solver" | "verdict";

export class ActiveCube {
  private readonly controller = new AbortController();
  phase: CubePhase = "formula";
  /** Why it was stopped; null while it may run. */
  stopReason: string | null = null;

  constructor(
    readonly slot: number,
    readonly run: string,
    readonly cube: string,
    readonly startedUnixMs: number,
    /** The task's lease: heartbeats prove with it that this worker holds the cube (proto/lease-proof.ts). */
    readonly lease = "",
  ) {}

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  stop(reason: string): void {
    if (this.stopReason !== null) return;
    this.stopReason = reason;
    this.controller.abort();
  }

  /** Stopped for a reason after which the task must run again (pause-now, shutdown). */
  get handBack(): boolean {
    return this.stopReason === PAUSE_NOW || this.stopReason === SHUTDOWN;
  }
}

/** The stop reason used when the worker shuts down. */
export const SHUTDOWN = "shutdown";

export class ActiveCubes {
  private readonly bySlot = new Map<number, ActiveCube>();

  get size(): number {
    return this.bySlot.size;
  }

  add(cube: ActiveCube): void {
    this.bySlot.set(cube.slot, cube);
  }

  remove(cube: ActiveCube): void {
    if (this.bySlot.get(cube.slot) === cube) this.bySlot.delete(cube.slot);
  }

  /** Stops every cube of `run` (cube empty) or that one cube; returns how many were stopped. */
  stopMatching(run: string, cube: string, reason: string): number {
    let n = 0;
    for (const a of this.bySlot.values()) {
      if (a.run === run && (cube === "" || a.cube === cube) && a.stopReason === null) {
        a.stop(reason);
        n++;
      }
    }
    return n;
  }

  stopAll(reason: string): number {
    let n = 0;
    for (const a of this.bySlot.values()) {
      if (a.stopReason === null) {
        a.stop(reason);
        n++;
      }
    }
    return n;
  }

  running(workerId: string): RunningCube[] {
    return [...this.bySlot.values()].map((a) => ({ runId: a.run, cubeId: a.cube, startedUnixMs: a.startedUnixMs, leaseProof: leaseProof(a.lease, workerId) }));
  }
}
