#!/usr/bin/env node
// The `cubist` command: runs the built CLI (npm run build, or scripts/setup.sh, compiles it to dist/).
import { existsSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";
import { dirname, join } from "node:path";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const main = join(root, "dist", "cli", "main.js");
if (!existsSync(main)) {
  process.stderr.write("cubist: the CLI is not built yet; run scripts/setup.sh (or npm run build) in " + root + "\n");
  process.exit(2);
}
await import(pathToFileURL(main).href);
