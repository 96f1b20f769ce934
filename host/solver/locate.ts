/**
 * Finding the solver executable: a bare name is searched on PATH, anything with a slash is taken as a path.
 * Used at worker start to fail early with a clear message, and (cached) by runSolver.
 */

import { accessSync, constants, statSync } from "node:fs";
import { basename, delimiter, isAbsolute, join, resolve } from "node:path";
import { runChild } from "../child.js";
import { SolverNotFoundError } from "./errors.js";

/** True when `file` is a regular file we may execute. */
function isExecutableFile(file: string): boolean {
  try {
    if (!statSync(file).isFile()) return false;
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * The absolute path of an executable solver. `nameOrPath` is a solver name ("kissat") looked up on `PATH`,
 * or a path (anything containing "/"), resolved against the current directory.
 * @throws SolverNotFoundError naming the binary and pointing at scripts/setup.sh.
 */
export function locateSolver(nameOrPath: string, env: NodeJS.ProcessEnv = process.env): string {
  if (nameOrPath === "") throw new SolverNotFoundError("(empty name)", "no solver binary given");
  if (nameOrPath.includes("/")) {
    const file = resolve(nameOrPath);
    if (isExecutableFile(file)) return file;
    let reason = `${file} is not an executable file`;
    try {
      statSync(file);
    } catch {
      reason = `${file} does not exist`;
    }
    throw new SolverNotFoundError(nameOrPath, reason);
  }
  const dirs = (env.PATH ?? "").split(delimiter).filter((d) => d !== "" && isAbsolute(d));
  for (const dir of dirs) {
    const file = join(dir, nameOrPath);
    if (isExecutableFile(file)) return file;
  }
  throw new SolverNotFoundError(nameOrPath, `no executable "${nameOrPath}" on PATH (${dirs.join(delimiter) || "PATH is empty"})`);
}

const cache = new Map<string, string>();

/** locateSolver, memoised per (name, PATH): runSolver runs thousands of times per worker. */
export function locateSolverCached(nameOrPath: string): string {
  const relative = nameOrPath.includes("/") && !isAbsolute(nameOrPath);
  const key = `${nameOrPath}\0${relative ? process.cwd() : process.env.PATH ?? ""}`;
  let file = cache.get(key);
  if (file === undefined) {
    file = locateSolver(nameOrPath);
    cache.set(key, file);
  }
  return file;
}

/** Forget cached locations (after a spawn found the cached binary gone). */
export function forgetSolverLocations(): void {
  cache.clear();
}

const tuningCache = new Map<string, Promise<string[]>>();

/**
 * Arguments that make a debug build of the solver run at release speed. Debian's kissat 4.0.2 package is built
 * with checking enabled (`--check=2`: its internal proof checker on by default), which halves its speed
 * (measured: PHP conflicts/s 33k vs 61k; em_7_3_6 heule-all 10.9 s vs 5.2 s). Release builds reject `--check`,
 * so it is only added when the binary's `--help` lists it. Probed once per binary, and only for binaries named
 * kissat* (a wrapper script or a test double may not answer --help quickly), through the one child runner
 * (host/child.ts) with a 3 s limit; concurrent first calls share one probe.
 */
export function speedArgs(binary: string, solver: string): Promise<string[]> {
  if (solver !== "kissat" || !basename(binary).startsWith("kissat")) return Promise.resolve([]);
  let args = tuningCache.get(binary);
  if (args === undefined) {
    let help = "";
    args = runChild(binary, ["--help"], { onStdout: (chunk) => void (help += chunk.toString("utf8")), timeLimitMs: 3000 })
      .then(() => (/--check=/.test(help) ? ["--check=0"] : []));
    tuningCache.set(binary, args);
  }
  return args;
}
