// Entry point of the `cubist` command (bin/cubist.js loads the compiled copy of this file).
import { main } from "./cli.js";

// A reader that went away (`cubist run watch RUN --json | head -3`) ends the command quietly, like other Unix
// tools, instead of an EPIPE stack trace; the run itself is not touched.
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (err: NodeJS.ErrnoException) => {
    if (err.code === "EPIPE") process.exit(0);
    throw err;
  });
}

process.exitCode = await main(process.argv.slice(2));
