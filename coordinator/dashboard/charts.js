// The run page's charts over time, drawn by uPlot (uplot.esm.js and uplot.min.css: uPlot 1.6.32 as published on npm,
// MIT, uplot-license.txt): cubes by state with the share closed, and the best score. Both have a time axis and a value
// axis with labels and readable ticks. Their points come from the coordinator, which keeps them in the run's ledger
// (coordinator/model/run-history.ts, run-best.ts), so a coordinator restart does not start them again; the page adds
// a point a second while it is open. The tick labels drawn are kept on the chart's element (data-x-ticks,
// data-y-ticks) and the chart itself as its `uplot` property, for the tests.
import uPlot from "./uplot.esm.js";
import { fmtNumber, STATE_COLOURS } from "./common.js";

/** Cube states, bottom to top of the stack ("open": queued or running). */
export const CUBE_LAYERS = ["unsat", "sat", "resplit", "failed", "unknown", "open"];
const LAYER_COLOURS = { ...STATE_COLOURS, open: STATE_COLOURS.queued };
const HEIGHT = 220;
const AXIS = { stroke: "#4b5563", grid: { stroke: "#e5e7eb", width: 1 }, ticks: { stroke: "#cbd5e1", width: 1 }, font: "12px system-ui, sans-serif", labelFont: "12px system-ui, sans-serif" };

const pad = (n) => String(n).padStart(2, "0");
/** Tick steps for axes of whole numbers (scores, cube counts): never a tick between two integers. */
const WHOLE_STEPS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1e3, 2e3, 5e3, 1e4, 2e4, 5e4, 1e5, 2e5, 5e5, 1e6, 2e6, 5e6, 1e7];

/** A time tick: "14:05" within a day, "11-26 14:05" beyond, ":05" seconds when the span is under 5 minutes. */
function timeLabel(sec, spanSec) {
  const d = new Date(sec * 1000);
  const hm = `${pad(d.getHours())}:${pad(d.getMinutes())}`;
  if (spanSec > 86400) return `${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${hm}`;
  return spanSec < 300 ? `${hm}:${pad(d.getSeconds())}` : hm;
}

/** Tick labels that the chart draws and the element records. */
function ticks(box, key, format) {
  return (u, splits) => {
    const labels = splits.map((v) => (v === null ? "" : format(v, u)));
    box.dataset[key] = labels.join("|");
    return labels;
  };
}

function timeAxis(box) {
  return {
    ...AXIS, label: "time", space: 70,
    values: ticks(box, "xTicks", (v, u) => timeLabel(v, (u.scales.x.max ?? v) - (u.scales.x.min ?? v))),
  };
}

function widthOf(box) {
  return Math.max(300, box.clientWidth || 800);
}

/** A chart kept across updates: made on the first data, fed with `setData` after. */
function keptChart(box, make) {
  let chart = null;
  window.addEventListener("resize", () => chart?.setSize({ width: widthOf(box), height: chart.height }));
  return (data) => {
    if (!chart) {
      box.replaceChildren();
      chart = make(data);
      box.uplot = chart;
    } else chart.setData(data);
  };
}

/** The cubes-over-time chart in `box`: `update(points)` with points {t (ms), progress, open, unsat, sat, ...}. */
export function cubesChart(box) {
  let raw = [];
  const set = keptChart(box, (data) => new uPlot({
    width: widthOf(box), height: HEIGHT,
    scales: { x: { time: false }, cubes: { range: (u, lo, hi) => [0, Math.max(1, hi)] }, pct: { range: [0, 100] } },
    axes: [
      timeAxis(box),
      { ...AXIS, scale: "cubes", label: "cubes", size: 60, incrs: WHOLE_STEPS, values: ticks(box, "yTicks", (v) => fmtNumber(v)) },
      { ...AXIS, scale: "pct", side: 1, label: "closed %", grid: { show: false }, values: ticks(box, "y2Ticks", (v) => `${v}%`) },
    ],
    series: [
      { label: "time", value: (u, v) => (v === null ? "" : timeLabel(v, 0)) },
      // Drawn from the top of the stack down, each filled to 0, so that each state shows its own band.
      ...[...CUBE_LAYERS].reverse().map((k) => ({
        label: k, scale: "cubes", stroke: LAYER_COLOURS[k], fill: LAYER_COLOURS[k], width: 1, points: { show: false },
        value: (u, v, si, i) => (i === null || i === undefined ? "" : fmtNumber(raw[i]?.[k] ?? 0)),
      })),
      { label: "closed", scale: "pct", stroke: "#1f2a37", width: 2, dash: [6, 4], points: { show: false }, value: (u, v) => (v === null ? "" : `${v.toFixed(2)}%`) },
    ],
    legend: { live: true },
  }, data, box));
  return (points) => {
    raw = points;
    const xs = points.map((p) => p.t / 1000);
    const stacks = [...CUBE_LAYERS].reverse().map((_, j) => points.map((p) => CUBE_LAYERS.slice(0, CUBE_LAYERS.length - j).reduce((n, k) => n + (p[k] ?? 0), 0)));
    set([xs, ...stacks, points.map((p) => p.progress * 100)]);
  };
}

/** The best-score chart in `box`: `update(points, now, maxScore)` with points {atUnixMs, score}, a step to now. */
export function bestChart(box) {
  const set = keptChart(box, (data) => new uPlot({
    width: widthOf(box), height: 160,
    scales: { x: { time: false }, y: { range: (u, lo, hi) => [Math.max(0, Math.floor(lo - 1)), Math.ceil(hi + 1)] } },
    axes: [timeAxis(box), { ...AXIS, label: "score", size: 50, incrs: WHOLE_STEPS, values: ticks(box, "yTicks", (v) => fmtNumber(v)) }],
    series: [
      { label: "time", value: (u, v) => (v === null ? "" : timeLabel(v, 0)) },
      { label: "best score", stroke: "#1f2a37", width: 2, paths: uPlot.paths.stepped({ align: 1 }), points: { show: true, size: 5 } },
    ],
    legend: { live: true },
  }, data, box));
  return (points, now) => {
    if (points.length === 0) return;
    const xs = points.map((p) => p.atUnixMs / 1000);
    const ys = points.map((p) => p.score);
    const last = points[points.length - 1];
    if (now > last.atUnixMs) {
      xs.push(now / 1000);
      ys.push(last.score);
    }
    set([xs, ys]);
  };
}
