// The runs list: every run the coordinator knows, newest first, updated live from /api/events.
import { el, follow, fmtBoardSize, fmtDateTime, fmtDuration, fmtNumber, progressBar, setupTokenBox, showConnection, showMessage, stateBadge, updateRows } from "./common.js";

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
  if (runs.length === 0) {
    tbody.replaceChildren(el("tr", {}, el("td", { colspan: 7, class: "muted" }, "No runs yet. Submit one with `cubist run submit` or `cubist coordinator --puzzle FILE`.")));
    return;
  }
  // Rows and cells are updated in place: a link being clicked while an update arrives stays the same element.
  updateRows(tbody, runs, (r) => r.runId, (r) => el("tr", { dataset: { run: r.runId } }), (tr, r) => replaceChangedCells(tr, runCells(r)));
}

/** The cells of a run's row. */
function runCells(r) {
  const terminal = r.ended;
  const took = r.runningSeconds || (r.finishedUnixMs && r.startedUnixMs ? (r.finishedUnixMs - r.startedUnixMs) / 1000 : 0);
  const eta = terminal ? (took ? `took ${fmtDuration(took)}` : "") : r.scoreRun || r.state === "paused" ? "-" : r.etaSeconds >= 0 ? fmtDuration(r.etaSeconds) : "unknown";
  return [
    el("td", {}, el("a", { href: `/runs/${encodeURIComponent(r.runId)}`, class: "run-link" }, r.name || r.runId), r.name && r.name !== r.runId ? el("div", { class: "muted small" }, r.runId) : null,
      el("div", { class: "muted small" }, `${fmtBoardSize(r)}, ${r.encoding}`)),
    el("td", {}, stateBadge(r.state)),
    el("td", { class: "progress-col" }, progressBar(r.progress, r.state === "sat" && !r.count ? "solved" : undefined)),
    el("td", {}, eta, r.waiting ? el("div", { class: "muted small", title: "why its queued cubes wait" }, r.waiting) : null),
    el("td", { class: "num" }, `${fmtNumber(closedOf(r.cubes))} / ${fmtNumber(totalOf(r.cubes))}`),
    el("td", { class: "num" }, r.count ? `${fmtNumber(r.count.solutions)}${r.count.complete ? "" : "+"}` : String(r.solutions), r.rejectedModels > 0 ? el("span", { class: "bad small" }, ` (${r.rejectedModels} rejected)`) : null),
    el("td", {}, fmtDateTime(r.startedUnixMs || r.createdUnixMs)),
  ];
}

/** Puts each new cell in place of the row's old one where they differ; an unchanged cell keeps its elements. */
function replaceChangedCells(tr, cells) {
  cells.forEach((td, i) => {
    const old = tr.children[i];
    if (!old) tr.append(td);
    else if (old.outerHTML !== td.outerHTML) old.replaceWith(td);
  });
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
