/**
 * ListRunEvents: a run's timeline (coordinator/model/run-timeline.ts) as the API and the dashboard show it. The
 * timeline is read from the run's ledger, so it is there after a coordinator restart; a run that ended and left memory
 * is rebuilt from its ledger like any other read of its cubes (`liveRun`).
 */

import { InvalidOptionError } from "../../core/errors.js";
import type { ListRunEventsRequest, ListRunEventsResponse, TimelineEvent } from "../../proto/gen/cubist/v1/api.js";
import type { RunTimeline } from "../model/run-timeline.js";
import type { CoordinatorControl } from "./coordinator-view.js";
import { liveRun } from "./run-calls.js";

/** Events a call returns at most (and by default): the newest. */
export const MAX_RUN_EVENTS = 10_000;

/** The newest `limit` events of a timeline, oldest first, and what it did not keep. */
export function timelineView(t: RunTimeline, limit = MAX_RUN_EVENTS): ListRunEventsResponse {
  const all = t.events;
  const events: TimelineEvent[] = all.slice(Math.max(0, all.length - limit)).map((e) => ({ ...e }));
  return { events, omitted: Object.fromEntries(t.omitted), total: all.length };
}

export async function listRunEvents(c: CoordinatorControl, req: ListRunEventsRequest): Promise<ListRunEventsResponse> {
  const run = await liveRun(c, req.runId);
  if (!Number.isInteger(req.limit) || req.limit < 0 || req.limit > MAX_RUN_EVENTS) {
    throw new InvalidOptionError("limit", `must be 0 (all) to ${MAX_RUN_EVENTS}, got ${req.limit}`);
  }
  return timelineView(run.timeline, req.limit || MAX_RUN_EVENTS);
}
