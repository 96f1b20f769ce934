/**
 * Why a run's queued cubes wait: the answer `run show`, the API (RunStatus.waiting) and the dashboard give for a
 * RUNNING run that has queued cubes and none running. Computed from the workers' heartbeats (slots, running cubes)
 * and the other runs' priorities; pure, for unit tests.
 */

/** A live worker as its last heartbeat describes it. */
export interface SlotReport {
  readonly slots: number;
  /** The runs of the cubes it runs now, one entry per busy slot. */
  readonly runs: readonly string[];
}

/** What is known about the other runs: the name to show (the run id, which every command takes) and current priority. */
export interface RunBrief {
  readonly name: string;
  readonly priority: number;
}

/**
 * "" when the run is not waiting (it has cubes running, or none queued, or a slot is free and will pull it);
 * otherwise a short reason such as `2/2 slots busy with e2-full (priority 0)`.
 */
export function waitingReason(
  run: { id: string; queued: number; running: number },
  workers: readonly SlotReport[],
  runs: ReadonlyMap<string, RunBrief>,
): string {
  if (run.queued === 0 || run.running > 0) return "";
  if (workers.length === 0) return "no live workers";
  let slots = 0;
  let busy = 0;
  const byRun = new Map<string, number>();
  for (const w of workers) {
    slots += w.slots;
    busy += Math.min(w.slots, w.runs.length);
    for (const r of w.runs) byRun.set(r, (byRun.get(r) ?? 0) + 1);
  }
  if (slots === 0) return "no worker slots";
  if (busy < slots) return "";
  const parts = [...byRun.entries()]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .map(([id, n]) => {
      const brief = runs.get(id);
      const name = brief?.name || id;
      const prio = brief ? `priority ${brief.priority}` : "not a live run";
      return byRun.size === 1 ? `${name} (${prio})` : `${name} (${prio}, ${n} slot${n === 1 ? "" : "s"})`;
    });
  return `${busy}/${slots} slots busy with ${parts.join(", ")}`;
}
