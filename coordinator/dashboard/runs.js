// The runs list: every run the coordinator knows, newest first, updated live from /api/events.
import { el, follow, fmtBoardSize, fmtDateTime, fmtDuration, fmtNumber, progressBar, setupTokenBox, showConnection, showMessage, stateBadge } from "./common.js";

const tbody = document.querySelector("#runs tbody");
const workersCount = document.getElementById("workers-count");
let stop = null;

function closedOf(c) {
  return c.unsat + c.sat + c.resplit;
}

/** Every cube the run made (purged and re-split ones too: a solved 64-cube run is not "1 / 1"). */
function totalOf(c) {
  return c.queued + c.running + c.unsat + c.sat + c.unknown + c.failed + c.resplit + c.purged;
}

/** A standby coordinator says so, and links the leader's dashboard (docs/operations.md "Leadership"). */
function renderRole(coordinator) {
  const box = document.getElementById("standby");
  if (!coordinator || coordinator.role !== "standby") {
    box.hidden = true;
    return;
  }
  const l = coordinator.leader;
  const link = l && l.http ? el("a", { href: `http://${l.http}/` }, `the leader's dashboard (${l.http})`) : null;
  box.replaceChildren(`This coordinator is a standby: it shows runs and changes nothing. ${l ? `The leader is ${l.id} on ${l.host}, term ${l.term}` : "No leader is known yet"}`, link ? ": " : ".", link ?? "");
  box.hidden = false;
}

function render({ runs, workers, coordinator }) {
  renderRole(coordinator);
  workersCount.textContent = `${workers} live worker${workers === 1 ? "" : "s"}`;
  tbody.replaceChildren();
  if (runs.length === 0) {
    tbody.append(el("tr", {}, el("td", { colspan: 7, class: "muted" }, "No runs yet. Submit one with `cubist run submit` or `cubist coordinator --puzzle FILE`.")));
    return;
  }
  for (const r of runs) {
    const terminal = r.ended;
    const took = r.runningSeconds || (r.finishedUnixMs && r.startedUnixMs ? (r.finishedUnixMs - r.startedUnixMs) / 1000 : 0);
    const eta = terminal ? (took ? `took ${fmtDuration(took)}` : "") : r.scoreRun || r.state === "paused" ? "-" : r.etaSeconds >= 0 ? fmtDuration(r.etaSeconds) : "unknown";
    tbody.append(el("tr", { dataset: { run: r.runId } },
      el("td", {}, el("a", { href: `/runs/${encodeURIComponent(r.runId)}`, class: "run-link" }, r.name || r.runId), r.name && r.name !== r.runId ? el("div", { class: "muted small" }, r.runId) : null,
        el("div", { class: "muted small" }, `${fmtBoardSize(r)}, ${r.encoding}`)),
      el("td", {}, stateBadge(r.state)),
      el("td", { class: "progress-col" }, progressBar(r.progress, r.state === "sat" && !r.count ? "solved" : undefined)),
      el("td", {}, eta, r.waiting ? el("div", { class: "muted small", title: "why its queued cubes wait" }, r.waiting) : null),
      el("td", { class: "num" }, `${fmtNumber(closedOf(r.cubes))} / ${fmtNumber(totalOf(r.cubes))}`),
      el("td", { class: "num" }, r.count ? `${fmtNumber(r.count.solutions)}${r.count.complete ? "" : "+"}` : String(r.solutions), r.rejectedModels > 0 ? el("span", { class: "bad small" }, ` (${r.rejectedModels} rejected)`) : null),
      el("td", {}, fmtDateTime(r.startedUnixMs || r.createdUnixMs))));
  }
}

function start() {
  if (stop) stop();
  stop = follow("/api/events", (event, data) => {
    if (event === "runs") {
      showMessage("");
      render(data);
    }
  }, (state) => {
    showConnection(state);
    if (state === "unauthorized") tokenBox.ask("Reading needs the API token (the coordinator runs with --auth-reads).");
  });
}

const tokenBox = setupTokenBox(start);
start();
