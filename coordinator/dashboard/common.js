// Shared helpers of the Cubist dashboard pages: the API token (kept in sessionStorage), JSON calls, a
// server-sent-events reader over fetch (so that the token can travel in a header), and formatting.

const TOKEN_KEY = "cubist-token";

export const STATE_COLOURS = {
  unsat: "#2e9e5b",
  refuted: "#9fd8ae",
  sat: "#f2b01e",
  running: "#2f7ed8",
  queued: "#cfd5dc",
  unknown: "#f08c2e",
  failed: "#d64545",
  resplit: "#9b8ec4",
  purged: "#eceff2",
  empty: "#ffffff",
};

export function token() {
  return sessionStorage.getItem(TOKEN_KEY) || "";
}

export function setToken(value) {
  if (value) sessionStorage.setItem(TOKEN_KEY, value);
  else sessionStorage.removeItem(TOKEN_KEY);
}

function headers(extra = {}) {
  const h = { ...extra };
  const t = token();
  if (t) h.authorization = `Bearer ${t}`;
  return h;
}

export class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.name = "ApiError";
    this.status = status;
  }
}

/** GET or POST a JSON endpoint; throws ApiError with the server's message. */
export async function api(path, { method = "GET", body } = {}) {
  const init = { method, headers: headers(body !== undefined ? { "content-type": "application/json" } : {}) };
  if (body !== undefined) init.body = JSON.stringify(body);
  const res = await fetch(path, init);
  let data = null;
  try {
    data = await res.json();
  } catch {
    data = null;
  }
  if (!res.ok) throw new ApiError(res.status, (data && data.error) || `${res.status} ${res.statusText}`);
  return data;
}

/**
 * Saves the file at `path` (a board download) under its name, fetched with the token (a plain link would go without
 * the header).
 */
export async function saveFile(path, fileName) {
  const res = await fetch(path, { headers: headers() });
  if (!res.ok) throw new ApiError(res.status, `${res.status} ${res.statusText}`);
  const url = URL.createObjectURL(await res.blob());
  const a = Object.assign(document.createElement("a"), { href: url, download: fileName });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/**
 * Follows a server-sent-events endpoint, reconnecting after a drop. `onEvent(name, data)`; `onState(state)`
 * with "live", "reconnecting" or "unauthorized". Returns a stop function.
 */
export function follow(path, onEvent, onState = () => {}) {
  let stopped = false;
  let ctrl = null;
  const run = async () => {
    while (!stopped) {
      ctrl = new AbortController();
      try {
        const res = await fetch(path, { headers: headers({ accept: "text/event-stream" }), signal: ctrl.signal });
        if (res.status === 401) {
          onState("unauthorized");
          await sleep(3000);
          continue;
        }
        if (!res.ok || !res.body) throw new Error(`${res.status}`);
        onState("live");
        const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
        let buf = "";
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buf += value;
          let i;
          while ((i = buf.indexOf("\n\n")) >= 0) {
            const block = buf.slice(0, i);
            buf = buf.slice(i + 2);
            let event = "message";
            const data = [];
            for (const line of block.split("\n")) {
              if (line.startsWith("event:")) event = line.slice(6).trim();
              else if (line.startsWith("data:")) data.push(line.slice(5).trimStart());
            }
            if (data.length === 0) continue;
            try {
              onEvent(event, JSON.parse(data.join("\n")));
            } catch (err) {
              console.error("event handler failed", event, err);
            }
          }
        }
      } catch {
        if (stopped) return;
      }
      if (!stopped) {
        onState("reconnecting");
        await sleep(1000);
      }
    }
  };
  run();
  return () => {
    stopped = true;
    if (ctrl) ctrl.abort();
  };
}

export function sleep(ms) {
  return new Promise((r) => setTimeout(r, ms));
}

/** Creates an element: el("td", {class: "num"}, "text", child, ...). */
export function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "class") e.className = v;
    else if (k.startsWith("on") && typeof v === "function") e.addEventListener(k.slice(2), v);
    else if (k === "dataset") Object.assign(e.dataset, v);
    else e.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children) {
    if (c === undefined || c === null || c === false) continue;
    e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return e;
}

/** A run's board: "6x6", or "triangle of side 6" (RunSummary.shape). */
export function fmtBoardSize(r) {
  return r.shape === "triangle" ? `triangle of side ${r.rows}` : `${r.rows}x${r.cols}`;
}

export function fmtDuration(sec) {
  if (sec === undefined || sec === null || !Number.isFinite(sec) || sec < 0) return "unknown";
  if (sec < 1) return `${Math.round(sec * 1000)} ms`;
  if (sec < 60) return `${sec.toFixed(sec < 10 ? 1 : 0)} s`;
  const m = Math.floor(sec / 60);
  if (m < 60) return `${m} min ${Math.round(sec % 60)} s`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h} h ${m % 60} min`;
  const d = Math.floor(h / 24);
  if (d < 3650) return `${d} d ${h % 24} h`;
  return `${(d / 365.25).toExponential(2)} years`;
}

export function fmtPercent(x) {
  if (!Number.isFinite(x)) return "?";
  if (x >= 1) return "100%";
  if (x > 0 && x < 0.0001) return `${(x * 100).toExponential(2)}%`;
  return `${(x * 100).toFixed(x < 0.1 ? 3 : 2)}%`;
}

export function fmtNumber(n) {
  if (!Number.isFinite(n)) return "?";
  if (Math.abs(n) >= 1e9) return `${(n / 1e9).toFixed(2)} G`;
  if (Math.abs(n) >= 1e6) return `${(n / 1e6).toFixed(2)} M`;
  if (Math.abs(n) >= 1e4) return `${(n / 1e3).toFixed(1)} k`;
  return Number.isInteger(n) ? String(n) : n.toFixed(1);
}

export function fmtWeight(w) {
  if (!Number.isFinite(w) || w <= 0) return "0";
  if (w >= 0.01) return w.toFixed(3);
  return w.toExponential(2);
}

/** `2026-11-23 17:52` in local time, always with the date (a runs list spans days). */
export function fmtDateTime(ms) {
  if (!ms) return "";
  const d = new Date(ms);
  const two = (n) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())} ${two(d.getHours())}:${two(d.getMinutes())}`;
}

/** A coloured badge for a run or cube state. */
export function stateBadge(state) {
  return el("span", { class: `state state-${state}` }, state);
}

/** Sets a progress bar element (with .bar and .label children). */
export function setProgress(node, ratio, label) {
  const pct = Math.max(0, Math.min(1, ratio || 0)) * 100;
  node.querySelector(".bar").style.width = `${pct}%`;
  node.querySelector(".label").textContent = label ?? fmtPercent(ratio);
  node.setAttribute("aria-valuenow", pct.toFixed(2));
}

export function progressBar(ratio, label) {
  const node = el("div", { class: "progress", role: "progressbar", "aria-valuemin": 0, "aria-valuemax": 100 }, el("div", { class: "bar" }), el("span", { class: "label" }));
  setProgress(node, ratio, label);
  return node;
}

/** The connection indicator in the header. */
export function showConnection(state) {
  const node = document.getElementById("conn");
  if (!node) return;
  node.textContent = state === "live" ? "live" : state === "unauthorized" ? "token needed" : "reconnecting";
  node.className = `conn conn-${state}`;
}

/** A message line (errors of actions, hints). */
export function showMessage(text, kind = "info") {
  const node = document.getElementById("message");
  if (!node) return;
  node.hidden = !text;
  node.textContent = text || "";
  node.className = `message message-${kind}`;
}

/** The token form in the header; `onChange` runs after saving or clearing. */
export function setupTokenBox(onChange = () => {}) {
  const form = document.getElementById("token-box");
  if (!form) return { ask() {} };
  const input = el("input", { type: "password", id: "token-input", placeholder: "API token", "aria-label": "API token", size: 14 });
  const save = el("button", { type: "submit", id: "token-save" }, "Save token");
  const clear = el("button", { type: "button", id: "token-clear", class: "link" }, "clear");
  const status = el("span", { class: "muted", id: "token-status" });
  const refresh = () => {
    status.textContent = token() ? "token set" : "no token";
    clear.hidden = !token();
  };
  form.append(input, save, clear, status);
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    setToken(input.value.trim());
    input.value = "";
    refresh();
    onChange();
  });
  clear.addEventListener("click", () => {
    setToken("");
    refresh();
    onChange();
  });
  refresh();
  return {
    ask(why) {
      form.classList.add("attention");
      input.focus();
      if (why) showMessage(why, "error");
    },
  };
}

/** Updates a tbody in place, one row per key, so that buttons being clicked are not replaced. */
export function updateRows(tbody, items, key, build, update) {
  const existing = new Map([...tbody.querySelectorAll("tr[data-key]")].map((tr) => [tr.dataset.key, tr]));
  const wanted = new Set();
  let prev = null;
  for (const item of items) {
    const k = key(item);
    wanted.add(k);
    let tr = existing.get(k);
    if (!tr) {
      tr = build(item);
      tr.dataset.key = k;
    }
    update(tr, item);
    const next = prev ? prev.nextSibling : tbody.firstChild;
    if (next !== tr) tbody.insertBefore(tr, next);
    prev = tr;
  }
  for (const [k, tr] of existing) if (!wanted.has(k)) tr.remove();
  for (const tr of tbody.querySelectorAll("tr:not([data-key])")) tr.remove();
}
