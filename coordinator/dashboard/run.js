// One run, live: progress and ETA, the board (best partial placement, then the verified solution), the map of
// the search space, cubes by state over time and the best score (charts.js), what happened to the run (timeline.js),
// running cubes with a re-split button, workers, and the cube list.
import {
  api, ApiError, el, follow, fmtBoardSize, fmtDuration, fmtNumber, fmtPercent, fmtWeight, saveFile, setProgress, setupTokenBox, showConnection, token,
  showMessage, STATE_COLOURS, stateBadge, fmtDateTime, updateRows,
} from "./common.js";
import { bestChart, cubesChart } from "./charts.js";
import { refreshTimeline } from "./timeline.js";

const runId = decodeURIComponent(location.pathname.split("/").filter(Boolean)[1] || "");
const $ = (id) => document.getElementById(id);
const SVG_NS = "http://www.w3.org/2000/svg";

let history = [];
let lastDetail = null;
let highlight = new Set();
let stop = null;

$("run-id").textContent = runId;
document.title = `Cubist: ${runId}`;

function svg(tag, attrs = {}) {
  const e = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  return e;
}

function setCells(tr, values) {
  values.forEach((v, i) => {
    const td = tr.children[i];
    if (!td) return;
    if (v instanceof Node) td.replaceChildren(v);
    else if (td.textContent !== String(v)) td.textContent = String(v);
  });
}

// ---- summary ----

// The best score over time (one point per improvement, a step line to now): charts.js.
const drawBest = bestChart($("best-chart"));
function renderBestHistory(points, now) {
  $("best-history").hidden = !points || points.length === 0;
  if (points?.length) drawBest(points, now);
}

function renderDetail(d) {
  lastDetail = d;
  renderBestHistory(d.bestHistory, d.now);
  const r = d.run;
  $("run-name").textContent = r.name || r.runId;
  $("run-state").replaceWith(Object.assign(stateBadge(r.state), { id: "run-state" }));
  const terminal = r.ended;
  $("btn-pause").disabled = r.state !== "running";
  $("btn-resume").disabled = r.state !== "paused";
  $("btn-cancel").disabled = terminal;
  // One ETA (the smoothed tree estimate); none while paused, none for a score run (nothing to close).
  const eta = terminal || r.scoreRun ? "" : r.state === "paused" ? ", no ETA while paused" : r.etaSeconds >= 0 ? `, ETA ${fmtDuration(r.etaSeconds)}` : ", ETA unknown";
  // A counting run shows its covered share and its count as it grows (never "solved").
  const counted = r.count ? `; ${countText(r.count, terminal)}` : "";
  setProgress($("progress"), r.progress, r.state === "sat" && !r.count ? "solved" : `${fmtPercent(r.progress)} closed${eta}${counted}`);
  $("btn-priority").disabled = terminal;
  $("priority").disabled = terminal;
  if (document.activeElement !== $("priority")) $("priority").value = String(r.priority);
  const c = r.cubes;
  // The time it ran: paused time left out (it stands still while paused).
  const elapsed = r.runningSeconds || ((r.finishedUnixMs || d.now) - r.startedUnixMs) / 1000;
  const made = r.initialCubes && d.spec.targetCubes && r.initialCubes !== d.spec.targetCubes ? ` (initial split: ${fmtNumber(r.initialCubes)} for ${fmtNumber(d.spec.targetCubes)} asked)` : "";
  const facts = [
    ["Cubes", `${fmtNumber(c.unsat + c.sat + c.resplit)} closed of ${fmtNumber(cubeTotal(c))}${made}`],
    ["Priority", String(r.priority)],
    ...(r.waiting ? [["Waiting", r.waiting]] : []),
    ["Queued / running", `${fmtNumber(c.queued)} / ${fmtNumber(c.running)}`],
    ["Unknown / failed", `${fmtNumber(c.unknown)} / ${fmtNumber(c.failed)}`],
    ["Re-split / refuted by split", `${fmtNumber(c.resplit)} / ${fmtNumber(c.refutedBySplit)}`],
    ["Throughput", `${r.cubesPerSecond.toFixed(2)} cubes/s, ${fmtNumber(Math.round(r.placementsPerSecond))} placements/s${terminal ? " on average" : ""}`],
    ["Placements", fmtNumber(r.placements)],
    ["Work left (tree estimate)", terminal ? "none" : r.remainingNodes >= 0
      ? `${r.remainingNodes.toExponential(2)} ± ${r.remainingNodesStderr.toExponential(1)} placements`
      : "no estimate yet"],
    ...(r.count ? [["Count", countText(r.count, terminal)]] : []),
    // A counting run's count is its one number of solutions (its recorded boards: cubist solution list).
    ...(r.count ? [] : [["Solutions", `${r.solutions}${r.rejectedModels ? ` (${r.rejectedModels} rejected)` : ""}`]]),
    [terminal ? "Took" : "Running for", `${fmtDuration(elapsed)}${r.state === "paused" ? " (stopped while paused)" : ""}`],
    ["Puzzle", `${fmtBoardSize(r)}, ${d.spec.pieces} pieces, ${d.spec.hints} hints`],
    ["Encoding", d.spec.numVars === null ? "none: a score run needs no CNF formula" : `${r.encoding}: ${fmtNumber(d.spec.numVars)} vars, ${fmtNumber(d.spec.numClauses)} clauses`],
    ["Solver", `${d.spec.solver}${d.spec.timeLimitSec ? `, ${d.spec.timeLimitSec} s per cube` : ""}${d.spec.searchMs ? `, search ${d.spec.searchMs} ms` : ""}`],
  ];
  $("facts").replaceChildren(...facts.map(([k, v]) => el("div", {}, el("dt", {}, k), el("dd", {}, v))));
  $("run-message").textContent = r.message || "";
  renderDownloads(d);
  renderRunning(d.running, terminal);
  renderWorkers(d.workers);
  addSample(d);
}

/** A counting run's count: "exactly 1,820 solutions", "at least 56 solutions so far". */
function countText(count, terminal) {
  const n = `${fmtNumber(count.solutions)} solution${count.solutions === 1 ? "" : "s"}`;
  if (count.complete) return `exactly ${n}`;
  return `at least ${n}${terminal ? "" : " so far"}${count.limit ? ` (limit ${fmtNumber(count.limit)})` : ""}`;
}

/** Every cube the run made: initial ones and re-split children, open, closed, re-split or purged. */
function cubeTotal(c) {
  return c.queued + c.running + c.unsat + c.sat + c.unknown + c.failed + c.resplit + c.purged;
}

/** A subtree's cost, flagged when it keeps being re-split (a hard region) or has taken 10 minutes. */
function subtreeCell(sec, resplits) {
  const text = `${fmtDuration(sec)}${resplits ? `, ${resplits} re-split${resplits === 1 ? "" : "s"}` : ""}`;
  const stuck = resplits >= 2 || sec >= STUCK_SEC;
  return el("span", { class: stuck ? "bad stuck" : "", title: stuck ? "a hard region: this subtree keeps being re-split or has taken long" : "" }, text);
}

const STUCK_SEC = 600;

$("btn-priority").addEventListener("click", async () => {
  const value = Number($("priority").value);
  if (!Number.isInteger(value) || value < -1000 || value > 1000) return showMessage("The priority is an integer from -1000 to 1000.", "error");
  $("btn-priority").disabled = true;
  try {
    const r = await api(`/api/runs/${encodeURIComponent(runId)}/priority`, { method: "POST", body: { priority: value } });
    showMessage(`Priority ${r.run ? r.run.priority : value}: workers pick by it on their next pull.`, "ok");
  } catch (err) {
    handleActionError(err);
  } finally {
    if (lastDetail) renderDetail(lastDetail);
  }
});

// ---- running cubes and re-split ----

function renderRunning(running, terminal) {
  $("running-count").textContent = `${running.length} running`;
  const tbody = $("running").querySelector("tbody");
  updateRows(tbody, running, (x) => x.cubeId, (x) => {
    const btn = el("button", { type: "button", class: "resplit small-btn", "data-cube": x.cubeId, title: "replace this cube by its children (one placement deeper)" }, "Re-split");
    btn.addEventListener("click", () => resplit(x.cubeId, btn));
    return el("tr", { dataset: { cube: x.cubeId } }, el("td", { class: "mono" }), el("td"), el("td", { class: "num" }), el("td", { class: "num" }), el("td", { class: "num" }), el("td"), el("td", {}, btn));
  }, (tr, x) => {
    setCells(tr, [x.cubeId, x.workerId, fmtDuration(x.ageSec), x.placed, fmtWeight(x.weight), subtreeCell(x.subtreeSec, x.subtreeResplits)]);
    tr.querySelector("button").disabled = terminal;
  });
  if (running.length === 0 && !tbody.querySelector("tr")) tbody.append(el("tr", {}, el("td", { colspan: 7, class: "muted" }, terminal ? "The run has ended." : "No cube is running right now.")));
}

async function resplit(cube, btn) {
  btn.disabled = true;
  try {
    const r = await api(`/api/runs/${encodeURIComponent(runId)}/cubes/${encodeURIComponent(cube)}/resplit`, { method: "POST", body: { depth: 1 } });
    highlight = new Set(r.children);
    const shown = r.children.slice(0, 8).join(", ") + (r.children.length > 8 ? ", ..." : "");
    showMessage(`Cube ${cube} re-split into ${r.children.length} children${r.refuted ? ` (${r.refuted} refuted by the splitter)` : ""}${r.children.length ? `: ${shown}` : ""}.`, "ok");
    $("cube-state").value = "";
    await refreshCubes();
  } catch (err) {
    handleActionError(err);
    btn.disabled = false;
  }
}

function handleActionError(err) {
  if (err instanceof ApiError && err.status === 401) tokenBox.ask(`${err.message}. Enter the coordinator's API token above.`);
  else showMessage(err.message, "error");
}

for (const btn of document.querySelectorAll("button[data-action]")) {
  btn.addEventListener("click", async () => {
    const action = btn.dataset.action;
    if (action === "cancel" && !confirm(`Cancel run ${runId}? Running solvers are stopped and the run cannot be resumed.`)) return;
    btn.disabled = true;
    try {
      const body = action === "cancel" ? { reason: "cancelled from the dashboard" } : {};
      const r = await api(`/api/runs/${encodeURIComponent(runId)}/${action}`, { method: "POST", body });
      showMessage(`Run ${r.run ? r.run.state : action}.`, "ok");
    } catch (err) {
      handleActionError(err);
    } finally {
      if (lastDetail) renderDetail(lastDetail);
    }
  });
}

// ---- workers ----

function renderWorkers(workers) {
  $("workers-count").textContent = `${workers.length} live`;
  updateRows($("workers").querySelector("tbody"), workers, (w) => w.workerId, () => el("tr", {}, el("td", { class: "mono" }), el("td"), el("td", { class: "num" }), el("td", { class: "mono" }), el("td", { class: "num" }), el("td", { class: "num" }), el("td", { class: "num" })), (tr, w) => {
    const current = w.quarantined ? `quarantined: ${w.quarantined}`
      : w.running.length ? w.running.map((x) => `${x.runId === runId ? "" : `${x.runId}/`}${x.cubeId} (${fmtDuration(x.ageSec)})`).join(", ") : "idle";
    // Heartbeat claims on cubes not leased to it (docs/operations.md "Identities and leases").
    const claims = w.falseClaims ? ` (${w.falseClaims} false running claim${w.falseClaims === 1 ? "" : "s"})` : "";
    setCells(tr, [w.workerId, w.host, `${w.busy} / ${w.slots}`, current + claims, w.conflictsPerSec ? fmtNumber(Math.round(w.conflictsPerSec)) : "-", w.cubesPerMin.toFixed(1), fmtNumber(w.cubesDone)]);
  });
}

// ---- board ----

/** A download link of a board file (JSON or SVG): a plain link, fetched with the token when one is set. */
function downloadLink(path, fileName, text) {
  const a = el("a", { href: path, download: fileName, class: "download", "data-file": fileName }, text);
  a.addEventListener("click", async (ev) => {
    if (!token()) return;
    ev.preventDefault();
    try {
      await saveFile(path, fileName);
    } catch (err) {
      handleActionError(err);
    }
  });
  return a;
}

/** Downloads of the best board and of the solutions (the first 20), each as JSON (what cubist render reads) and SVG. */
function renderDownloads(d) {
  const box = $("board-downloads");
  const base = `/api/runs/${encodeURIComponent(runId)}`;
  const key = `${d.best ? `${d.best.score}/${d.best.placed}/${d.best.foundUnixMs}` : ""};${d.solutions.length}`;
  if (box.dataset.key === key) return;
  box.dataset.key = key;
  const parts = [];
  const pair = (path, name) => [downloadLink(`${path}.json`, `${runId}-${name}.json`, "JSON"), " / ", downloadLink(`${path}.svg`, `${runId}-${name}.svg`, "SVG")];
  if (d.best) parts.push(el("span", {}, `Best board (score ${d.best.score} of ${d.best.maxScore}): `, ...pair(`${base}/best`, "best")));
  for (const s of d.solutions.slice(0, 20)) parts.push(el("span", {}, `Solution ${s.index + 1}: `, ...pair(`${base}/solutions/${s.index}`, `solution-${s.index}`)));
  box.hidden = parts.length === 0;
  box.replaceChildren(...parts.flatMap((p, i) => (i ? [" · ", p] : [p])));
}

function renderBoard(b) {
  const box = $("board");
  box.innerHTML = b.svg;
  box.dataset.kind = b.kind;
  const svgNode = box.querySelector("svg");
  if (svgNode) svgNode.removeAttribute("height");
  $("board-card").classList.toggle("solved", b.kind === "solution");
  $("board-link").hidden = !b.link;
  if (b.link) $("board-link").querySelector("a").href = b.link;
  $("board-caption").textContent = b.kind === "solution"
    ? `Verified solution (cube ${b.cubeId})`
    : b.kind === "best"
      ? `Best board: score ${b.score} of ${b.maxScore}, ${b.placed} of ${b.cells} cells (cube ${b.cubeId}, checked)`
      : b.kind === "partial"
        ? `Best partial placement: cube ${b.cubeId}, ${b.placed} of ${b.cells} cells`
        : `Hints only (${b.placed} of ${b.cells} cells)`;
}

// ---- map ----

const MAP_STATES = { u: "unsat", r: "refuted", s: "sat", R: "running", q: "queued", k: "unknown", f: "failed", p: "purged", ".": "empty" };

function renderMap(m) {
  const root = svg("svg", { viewBox: `0 0 ${m.side} ${m.side}`, class: "map-svg", "shape-rendering": "crispEdges", role: "img", "aria-label": "map of the search space" });
  for (let y = 0; y < m.side; y++) {
    let x = 0;
    while (x < m.side) {
      const code = m.cells[y * m.side + x];
      let x2 = x + 1;
      while (x2 < m.side && m.cells[y * m.side + x2] === code) x2++;
      const state = MAP_STATES[code] || "empty";
      root.append(svg("rect", { x, y, width: x2 - x, height: 1, fill: STATE_COLOURS[state], "data-state": state }));
      x = x2;
    }
  }
  $("map").replaceChildren(root);
  const order = ["unsat", "refuted", "sat", "running", "queued", "unknown", "failed", "purged"];
  $("map-legend").replaceChildren(...order.filter((s) => m.weights[s] > 0 || s === "unsat").map((s) =>
    el("li", {}, el("span", { class: "swatch", style: `background:${STATE_COLOURS[s]}` }), `${s === "refuted" ? "refuted by split" : s === "purged" ? "purged (not searched)" : s} ${fmtPercent(m.weights[s])}`)));
}

// ---- chart ----

const drawCubes = cubesChart($("chart"));

/** A point a second from the page's own updates, after the points the coordinator kept (from the run's ledger). */
function addSample(d) {
  const c = d.run.cubes;
  const last = history[history.length - 1];
  if (last && d.now - last.t < 1000) return;
  history.push({ t: d.now, progress: Math.min(1, d.run.progress), open: c.queued + c.running, unsat: c.unsat, sat: c.sat, unknown: c.unknown, failed: c.failed, resplit: c.resplit });
  if (history.length > 1200) history = history.filter((_, i) => i % 2 === 0 || i === history.length - 1);
  renderChart();
}

function renderChart() {
  if (history.length === 0) return;
  drawCubes(history);
  const t0 = history[0].t;
  const t1 = history[history.length - 1].t;
  $("chart-caption").textContent = `since ${fmtDateTime(t0)} (${fmtDuration((t1 - t0) / 1000)}); right axis: share of the space closed`;
}

// ---- cube list ----

/** The cube-state filter's options, from the server's list of cube states (proto/vocabulary.ts). */
function fillCubeStates(states) {
  const select = $("cube-state");
  if (select.options.length > 1) return;
  select.append(...states.map((s) => el("option", {}, s)));
}

async function refreshCubes() {
  const state = $("cube-state").value;
  try {
    const stuck = $("cube-stuck").checked ? `&stuck=${STUCK_SEC}` : "";
    const r = await api(`/api/runs/${encodeURIComponent(runId)}/cubes?recent=1&limit=200${state ? `&state=${state}` : ""}${stuck}`);
    $("cubes-count").textContent = r.total > r.cubes.length ? `newest ${r.cubes.length} of ${fmtNumber(r.total)}` : `${r.total}`;
    updateRows($("cubes").querySelector("tbody"), r.cubes, (x) => x.cubeId,
      () => el("tr", {}, el("td", { class: "mono" }), el("td"), el("td", { class: "num" }), el("td", { class: "num" }), el("td", { class: "mono" }), el("td", { class: "num" }), el("td"), el("td", { class: "small muted" })),
      (tr, x) => {
        setCells(tr, [x.cubeId, stateBadge(x.state), x.placed, fmtWeight(x.weight), x.workerId, x.wallMs ? fmtDuration(x.wallMs / 1000) : "",
          subtreeCell(x.subtreeSec, x.subtreeResplits), x.reason || (x.unknowns ? `${x.unknowns} unknown` : "")]);
        tr.dataset.cube = x.cubeId;
        tr.classList.toggle("highlight", highlight.has(x.cubeId));
      });
  } catch (err) {
    if (!(err instanceof ApiError && err.status === 401)) console.warn(err);
  }
}
$("cube-state").addEventListener("change", refreshCubes);
$("cube-stuck").addEventListener("change", refreshCubes);

// ---- wiring ----

async function start() {
  if (stop) stop();
  try {
    const d = await api(`/api/runs/${encodeURIComponent(runId)}`);
    history = d.history.slice();
    refreshTimeline(runId);
    fillCubeStates(d.cubeStates);
    renderDetail(d);
    renderBoard(d.board);
    renderMap(d.map);
    showMessage("");
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) tokenBox.ask("Reading needs the API token (the coordinator runs with --auth-reads).");
    else showMessage(err.message, "error");
  }
  refreshCubes();
  stop = follow(`/api/runs/${encodeURIComponent(runId)}/events`, (event, data) => {
    if (event === "detail") renderDetail(data);
    else if (event === "board") renderBoard(data);
    else if (event === "map") renderMap(data);
  }, showConnection);
}

const tokenBox = setupTokenBox(start);
setInterval(refreshCubes, 3000);
setInterval(() => refreshTimeline(runId), 5000);
start();
