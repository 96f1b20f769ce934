/**
 * What the servers, views and metrics see of the coordinator (coordinator/shell/coordinator.ts) and its runs
 * (coordinator/shell/run.ts): narrow interfaces, so that serve/ depends on the few reads and calls it makes, not on
 * the whole coordinator. The shell's classes meet them as they are; nothing here is implemented twice.
 */

import type { EventEmitter } from "node:events";
import type { RunRecord } from "../../proto/gen/cubist/v1/run.js";
import type { Verdict } from "../../proto/gen/cubist/v1/cube.js";
import type { LeaderRecord } from "../model/leader-lease.js";
import type { RunRequest } from "../run-spec.js";
import type { CoordinatorCounters } from "../shell/verdict-router.js";
import type { RejectKind } from "../shell/heartbeats.js";
import type { RunController } from "../shell/run.js";
import type { WorkerInfo } from "../shell/worker-table.js";

/** A run as the views and metrics read it: its spec, shape, state, cubes, answers and status. */
export type RunView = Pick<RunController,
  "id" | "spec" | "shape" | "state" | "table" | "running" | "solutions" | "best" | "bestHistory" | "coveredWeight" | "counted" |
  "rejected" | "startedAt" | "finishedAt" | "status" | "record" | "timeline" | "cubeHistory" | "spotChecks" | "proofCheckers">;

/** What the views, the metrics and the HTTP server read of the coordinator. */
export interface CoordinatorView {
  /** This process's instance id. */
  readonly id: string;
  readonly role: "leader" | "standby";
  /** The leader as last seen; null when none is known. */
  readonly leader: LeaderRecord | null;
  readonly counters: Readonly<CoordinatorCounters>;
  /** Messages dropped as impossible or forged, by kind. */
  readonly rejections: { count(kind: RejectKind): number };
  /** The verdict consumer it reads while it leads ("" otherwise). */
  readonly verdictConsumerName: string;
  /** Every accepted verdict as it arrives. */
  readonly verdictTap: Pick<EventEmitter<{ verdict: [Verdict] }>, "on" | "off">;
  /** The runs in memory. */
  runs(): IterableIterator<RunView>;
  getRun(id: string): RunView | undefined;
  /** Workers heard from lately. */
  liveWorkers(now?: number): WorkerInfo[];
  /** Workers whose verdicts are not taken (a spot check disproved one), and why. */
  readonly distrusted: ReadonlyMap<string, string>;
  /** Every run's record: those in memory and finished ones in the runs bucket. */
  listRunRecords(): Promise<RunRecord[]>;
}

/** What the API's calls do with the coordinator: its reads, and runs loaded, submitted and deleted. */
export interface CoordinatorControl extends CoordinatorView {
  getRun(id: string): RunController | undefined;
  /** A run by id, from memory or rebuilt from its ledger (the leader's only). */
  loadRun(id: string): Promise<RunController | undefined>;
  /** The run's record (every run, also finished ones not in memory). */
  runRecord(id: string): Promise<RunRecord | null>;
  submitRun(req: RunRequest): Promise<RunController>;
  /** Forgets a run that has ended. */
  deleteRun(id: string): Promise<void>;
}
