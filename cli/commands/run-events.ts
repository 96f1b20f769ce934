/** `cubist run events RUN`: what happened to a run, oldest first (its timeline, read from its ledger). */
import { UsageError, type CommandSpec, type ParsedValues } from "../args.js";
import { EXIT } from "../exit-codes.js";
import { CLIENT_OPTIONS } from "../client.js";
import { withControlApi } from "../control-client.js";
import { formatTime } from "../control-format.js";
import type { ListRunEventsRequest, ListRunEventsResponse, TimelineEvent } from "../../proto/gen/cubist/v1/api.js";

export const spec: CommandSpec = {
  name: "run events",
  summary: "What happened to a run: submitted, paused, resumed, priority, manual re-splits and who asked, workers quarantined, takeovers, best scores, solutions, its end.",
  usage: "cubist run events <run> [--limit N] [--coordinator HOST:PORT] [--token T] [--json]",
  positionals: { min: 1, max: 1 },
  options: {
    ...CLIENT_OPTIONS,
    limit: { type: "string", arg: "N", description: "only the newest N events (default: all the run keeps, at most 10000)" },
  },
  details: `One line per event, oldest first: its time (UTC), its kind, what happened, who did it (an API caller as
"user@host (grpc ADDRESS)" or "dashboard ADDRESS", a coordinator's instance id, a worker) and, after a takeover,
the leader term that recorded it. The events are read from the run's ledger in JetStream, so they survive
coordinator restarts and takeovers. A run keeps at most so many events of its noisy kinds (best scores 500,
solutions 20, failed cubes 50); the rest are counted at the end.

Kinds: submitted, paused, resumed, priority, resplit, quarantine, quarantine-lifted, takeover, best, solution,
cube-failed, coverage, ended, note.

--json prints {"events":[{"atUnixMs","time","kind","message","actor","term"}],"omitted":{kind:N},"total":N}.

Exit codes: 0 listed; 1 error (NOT_FOUND; UNAUTHENTICATED with --auth-reads: pass --token or set
CUBIST_AUTH_TOKEN; unreachable coordinator); 2 usage error.`,
};

/** One event as a line: "2026-11-26 21:04:05 UTC  paused     paused  by alice@laptop (grpc 127.0.0.1)". */
export function eventLine(e: TimelineEvent, kindWidth: number): string {
  const by = e.actor ? `  by ${e.actor}` : "";
  return `${formatTime(e.atUnixMs)}  ${e.kind.padEnd(kindWidth)}  ${e.message}${by}${e.term > 1 ? `  [term ${e.term}]` : ""}`;
}

function parseLimit(text: unknown): number {
  if (text === undefined) return 0;
  const n = Number(text);
  if (!/^\d+$/.test(String(text)) || n < 1 || n > 10_000) throw new UsageError(`--limit must be an integer in 1..10000, got "${String(text)}"`);
  return n;
}

export async function run(values: ParsedValues, [runId]: string[]): Promise<number> {
  const limit = parseLimit(values.limit);
  return withControlApi(values, async (api) => {
    const r = await api.call<ListRunEventsRequest, ListRunEventsResponse>(api.client.listRunEvents, { runId, limit });
    if (values.json) {
      const events = r.events.map((e) => ({ atUnixMs: e.atUnixMs, time: new Date(e.atUnixMs).toISOString(), kind: e.kind, message: e.message, actor: e.actor, term: e.term }));
      process.stdout.write(`${JSON.stringify({ events, omitted: r.omitted, total: r.total })}\n`);
      return EXIT.OK;
    }
    const width = Math.max(0, ...r.events.map((e) => e.kind.length));
    const lines = r.events.map((e) => eventLine(e, width));
    if (r.total > r.events.length) lines.unshift(`(the newest ${r.events.length} of ${r.total} events)`);
    const omitted = Object.entries(r.omitted).filter(([, n]) => n > 0);
    if (omitted.length > 0) lines.push(`(not kept: ${omitted.map(([k, n]) => `${n} more ${k}`).join(", ")})`);
    process.stdout.write(lines.length > 0 ? `${lines.join("\n")}\n` : `run ${runId} has no events\n`);
    return EXIT.OK;
  });
}
