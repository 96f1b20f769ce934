/**
 * `cubist run certificate RUN -o DIR`: exports the certificate of a certified UNSAT run (formula, cubes, DRAT
 * proofs, README, check.sh, the formula's own encoder) so anyone can re-check it with python3 and drat-trim alone
 * (docs/operations.md "Certificates").
 */
import { mkdir, rm } from "node:fs/promises";
import { createWriteStream, type WriteStream } from "node:fs";
import { dirname, isAbsolute, join, normalize } from "node:path";
import type { ServiceError } from "@grpc/grpc-js";
import { UsageError, type CommandSpec, type ParsedValues } from "../args.js";
import { EXIT } from "../exit-codes.js";
import { CLIENT_OPTIONS, clusterError } from "../client.js";
import { withControlApi, withHint } from "../control-client.js";
import type { CertificateChunk } from "../../proto/gen/cubist/v1/api.js";

export const spec: CommandSpec = {
  name: "run certificate",
  summary: "Export the certificate of a certified UNSAT run (formula, puzzle, cubes, DRAT proofs, README, check.sh, encode.py; a formula run's without puzzle and encode.py) into a directory.",
  usage: "cubist run certificate <run> -o DIR [--coordinator HOST:PORT]",
  positionals: { min: 1, max: 1 },
  options: {
    output: { type: "string", short: "o", arg: "DIR", output: true, description: "directory to write the bundle into (created; files in it are replaced)" },
    ...CLIENT_OPTIONS,
  },
  details: `The run must have been submitted with --certify and have ended UNSAT with its coverage checked.
Re-check the bundle without Cubist: sh DIR/check.sh (needs python3 and drat-trim): it re-derives formula.cnf from
puzzle.txt with the bundle's encode.py, then checks every proof; DIR/README.md gives the commands. A formula run's
bundle (F.cnf, P.sudoku) is that of solve F.cnf --certify --certificate DIR: formula.cnf, cubes, Kissat's DRAT
proofs, README.md and check.sh, which needs drat-trim alone (no encoder: the claim is about formula.cnf).

Exit codes: 0 written, 1 error (NOT_FOUND: no such run; FAILED_PRECONDITION: not a certified UNSAT run;
unreachable coordinator; a file that cannot be written), 2 usage error.`,
};

function safePath(dir: string, p: string): string {
  const rel = normalize(p);
  if (p === "" || isAbsolute(rel) || rel.startsWith("..")) throw new Error(`the coordinator sent a file outside the bundle: "${p.slice(0, 80)}"`);
  return join(dir, rel);
}

async function writeChunk(out: WriteStream, data: Uint8Array): Promise<void> {
  if (!out.write(data)) await new Promise<void>((resolve, reject) => {
    out.once("drain", resolve);
    out.once("error", reject);
  });
}

function closeFile(out: WriteStream): Promise<void> {
  return new Promise((resolve, reject) => {
    out.once("error", reject);
    out.end(() => resolve());
  });
}

export async function run(values: ParsedValues, [runId]: string[]): Promise<number> {
  const dir = values.output as string | undefined;
  if (!dir) throw new UsageError("run certificate needs -o DIR");
  return withControlApi(values, async (api) => {
    // Created with the first file: a refused export leaves nothing behind.
    let created: string | undefined;
    const files: string[] = [];
    const stream = api.client.getCertificate({ runId }, api.metadata);
    let out: WriteStream | null = null;
    try {
      // Files arrive one after another, each in order, its last chunk marked.
      for await (const c of stream as AsyncIterable<CertificateChunk>) {
        if (files.length === 0) created = await mkdir(dir, { recursive: true });
        if (out === null) {
          const target = safePath(dir, c.path);
          await mkdir(dirname(target), { recursive: true });
          out = createWriteStream(target, { mode: c.path === "check.sh" ? 0o755 : 0o644 });
          files.push(c.path);
        }
        await writeChunk(out, c.data);
        if (c.last) {
          await closeFile(out);
          out = null;
        }
      }
      if (out !== null) throw new Error(`the bundle ended in the middle of ${files.at(-1)}`);
    } catch (err) {
      stream.cancel();
      (out as WriteStream | null)?.destroy();
      // Only a directory this command created, and only when nothing was written.
      if (files.length === 0 && created !== undefined) await rm(created, { recursive: true, force: true }).catch(() => undefined);
      const e = err as ServiceError;
      throw typeof e?.code === "number" && "details" in e ? withHint(clusterError(e, api.address)) : err;
    }
    const proofs = files.filter((f) => f.startsWith("proofs/")).length;
    process.stderr.write(`certificate of run ${runId} written to ${dir}: ${files.length} files, ${proofs} cube proof(s); re-check with: sh ${join(dir, "check.sh")}\n`);
    return EXIT.OK;
  });
}
