// Entry point of the `cubist` command (bin/cubist.js loads the compiled copy of this file).
import { main } from "./cli.js";

process.exitCode = await main(process.argv.slice(2));
