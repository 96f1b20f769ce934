/**
 * What a certified cube's proof costs on its way from the worker to the checker, apart from proving and checking
 * (issue 23): the upload to the proofs stream, the coordinator's download, and the LRAT guard's reading.
 *
 *   node --import tsx bench/proof-transfer.ts --proof FILE [--cnf FILE] [--repeats 3] [--out FILE]
 *
 * Starts a private nats-server with the cluster's layout, then per repeat: uploadProof (the worker's side: hash,
 * chunks, JetStream acks), downloadProof (the coordinator's: every chunk read, followed and hashed, written to a
 * file) and, given the proof's formula (`--cnf`), the LRAT guard (certify/lrat-guard.ts). It reports this
 * process's CPU seconds per step (process.cpuUsage: user + system) and nats-server's over the whole run (/proc).
 */

import { appendFileSync, readFileSync, rmSync, statSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { startTestNats } from "../test/helpers/nats.js";
import { downloadProof, uploadProof } from "../certify/proof-store.js";
import { checkEmptyClauses } from "../certify/lrat-guard.js";
import { median } from "./lib/summary.js";

const { values } = parseArgs({ options: { proof: { type: "string" }, cnf: { type: "string" }, repeats: { type: "string", default: "3" }, out: { type: "string" } } });
if (!values.proof) throw new Error("--proof FILE is required");
const say = (line: string): void => {
  console.log(line);
  if (values.out) appendFileSync(values.out, line + "\n");
};

/** CPU seconds of process `pid` so far (user + system), from /proc. */
function procCpu(pid: number): number {
  const f = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(f[11]) + Number(f[12])) / 100;
}

async function cpu<T>(work: () => Promise<T>): Promise<[number, T]> {
  const t0 = process.cpuUsage();
  const r = await work();
  const d = process.cpuUsage(t0);
  return [(d.user + d.system) / 1e6, r];
}

const nats = await startTestNats();
const dir = mkdtempSync(join(tmpdir(), "cubist-proof-transfer-"));
const rows: Record<string, number[]> = { upload: [], download: [], guard: [], nats: [] };
const mb = statSync(values.proof).size / 1e6;
say(`# ${new Date().toISOString()} ${values.proof} (${mb.toFixed(0)} MB), load ${readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ")}`);
try {
  for (let i = 0; i < Number(values.repeats); i++) {
    const n0 = procCpu(nats.server.pid);
    const [up, name] = await cpu(() => uploadProof(nats.layout.proofs, values.proof!, `bench ${i}`));
    const out = join(dir, "down.proof");
    const [down] = await cpu(() => downloadProof(nats.layout.proofs, name, out));
    const n = procCpu(nats.server.pid) - n0;
    let guard = NaN;
    if (values.cnf) {
      const [g, problem] = await cpu(() => checkEmptyClauses(values.cnf!, out));
      if (problem !== null) throw new Error(problem);
      guard = g;
    }
    // Each repeat stores another upload under the same name; the download reads the stream from the first (one proof's worth).
    rmSync(out);
    rows.upload!.push(up); rows.download!.push(down); rows.guard!.push(guard); rows.nats!.push(n);
    say(`repeat ${i + 1}: upload ${up.toFixed(2)} s, download ${down.toFixed(2)} s, nats-server ${n.toFixed(2)} s, guard ${guard.toFixed(2)} s CPU (load ${readFileSync("/proc/loadavg", "utf8").split(" ")[0]})`);
  }
  const m = (k: string): string => median(rows[k]!).toFixed(2);
  say(`median CPU s: upload ${m("upload")} download ${m("download")} nats-server ${m("nats")} guard ${m("guard")}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
  await nats.close();
}
