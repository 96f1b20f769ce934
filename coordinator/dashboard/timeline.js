// The run page's events: what happened to the run, oldest first (GET /api/runs/<run>/timeline, the same list as
// `cubist run events`), read from the run's ledger by the coordinator, so it is whole after a restart.
import { api, el, fmtDateTime } from "./common.js";

const $ = (id) => document.getElementById(id);
let shown = "";

/** Seconds too, for events a moment apart. */
function timeOf(ms) {
  const d = new Date(ms);
  return `${fmtDateTime(ms)}:${String(d.getSeconds()).padStart(2, "0")}`;
}

export async function refreshTimeline(runId) {
  let r;
  try {
    r = await api(`/api/runs/${encodeURIComponent(runId)}/timeline`);
  } catch (err) {
    console.warn(err);
    return;
  }
  const key = `${r.total}:${r.events.at(-1)?.atUnixMs ?? 0}:${r.events.at(-1)?.actor ?? ""}`;
  if (key === shown) return;
  shown = key;
  const omitted = Object.entries(r.omitted ?? {}).filter(([, n]) => n > 0).map(([k, n]) => `${n} more ${k}`);
  $("timeline-count").textContent = `${r.total} event${r.total === 1 ? "" : "s"}${omitted.length ? ` (not kept: ${omitted.join(", ")})` : ""}`;
  $("timeline").querySelector("tbody").replaceChildren(...r.events.map((e) =>
    el("tr", { "data-kind": e.kind }, el("td", { class: "mono small" }, timeOf(e.atUnixMs)), el("td", {}, e.kind), el("td", {}, e.message),
      el("td", { class: "small muted" }, e.actor))));
}
