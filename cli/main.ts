// Entry point of the `cubist` command (bin/cubist.js loads the compiled copy of this file).
import { main } from "./cli.js";
import { handleOutputError } from "./closed-output.js";

// A reader that went away ends the command quietly (cli/closed-output.ts); any other stream error is a bug.
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (err: NodeJS.ErrnoException) => {
    if (!handleOutputError(err)) throw err;
  });
}

process.exitCode = await main(process.argv.slice(2));
