/** Where the worker finds `cubist-prove`: beside its placement engine (the build puts both in dist/engine). */
import { accessSync, constants } from "node:fs";
import { dirname, join } from "node:path";

const found = new Map<string, string | null>();

/** The prover beside `enginePath` (or CUBIST_PROVER), or null when there is none: certified cubes then use the SAT solver. */
export function proverBinary(enginePath: string, env: NodeJS.ProcessEnv = process.env): string | null {
  const file = env.CUBIST_PROVER || join(dirname(enginePath), "cubist-prove");
  let hit = found.get(file);
  if (hit === undefined) {
    try {
      accessSync(file, constants.X_OK);
      hit = file;
    } catch {
      hit = null;
    }
    found.set(file, hit);
  }
  return hit;
}
