/** `cubist nats users`: the NATS users of a Cubist account, one per worker, for nats-server's configuration. */
import { randomBytes } from "node:crypto";
import type { CommandSpec, ParsedValues } from "../args.js";
import { EXIT } from "../exit-codes.js";
import { writeOutput } from "../io.js";
import { InvalidOptionError } from "../../core/errors.js";
import { cubistUsers, usersConfig } from "../../cluster/nats-users.js";
import { createNames, WORKER_ID_RE } from "../../proto/contract.js";

export const spec: CommandSpec = {
  name: "nats users",
  summary: "Print the users: [...] list of Cubist's NATS account: the coordinator with the whole account, and one user per worker that may publish only its own verdicts and heartbeats.",
  usage: "cubist nats users (--worker ID ... | --workers N [--worker-prefix P]) [--coordinator-user U] [--password-env] [--prefix P] [-o FILE]",
  positionals: { min: 0, max: 0 },
  options: {
    worker: { type: "string", arg: "ID", description: "a worker id (repeatable); its NATS user has the same name", multiple: true },
    workers: { type: "integer", arg: "N", description: "workers <worker-prefix>1 .. <worker-prefix>N", min: 1, max: 10_000 },
    "worker-prefix": { type: "string", arg: "P", description: "name prefix with --workers", default: "worker-" },
    "coordinator-user": { type: "string", arg: "U", description: "the coordinator's NATS user", default: "cubist" },
    "password-env": { type: "boolean", description: "passwords as variables for nats-server to read from its environment ($CUBIST_NATS_PASS, $CUBIST_WORKER_PASS_<ID>) instead of random ones" },
    prefix: { type: "string", arg: "P", description: "name prefix of the streams, buckets and subjects", env: "CUBIST_PREFIX", default: "cubist" },
    output: { type: "string", short: "o", arg: "FILE", description: "write here (default stdout); it holds passwords, so keep it private" },
  },
  details: `Put the output inside the account that holds Cubist's streams, e.g.
  accounts { CUBIST { jetstream: enabled, include "cubist-users.conf" } }
then start each worker with --id ID --nats-user ID and its password (CUBIST_NATS_PASS), and the coordinator with
the coordinator's user. See docs/operations.md, "Identities and leases".`,
};

/** `$CUBIST_WORKER_PASS_<ID>`: the id upper-cased, "-" as "_". */
export function workerPasswordVariable(id: string): string {
  return `$CUBIST_WORKER_PASS_${id.toUpperCase().replace(/-/g, "_")}`;
}

export async function run(values: ParsedValues): Promise<number> {
  let names;
  try {
    names = createNames(values.prefix as string);
  } catch (err) {
    throw new InvalidOptionError("--prefix", (err as Error).message);
  }
  const ids = [...((values.worker as string[] | undefined) ?? [])];
  if (typeof values.workers === "number") for (let i = 1; i <= values.workers; i++) ids.push(`${values["worker-prefix"] as string}${i}`);
  if (ids.length === 0) throw new InvalidOptionError("--worker", "name at least one worker (--worker ID or --workers N)");
  for (const id of ids) if (!WORKER_ID_RE.test(id)) throw new InvalidOptionError("--worker", `"${id}" is not a worker id: 1-64 letters, digits, _ or -`);
  if (new Set(ids).size !== ids.length) throw new InvalidOptionError("--worker", "worker ids must differ");
  const coordinatorUser = values["coordinator-user"] as string;
  if (ids.includes(coordinatorUser)) throw new InvalidOptionError("--coordinator-user", `"${coordinatorUser}" is also a worker`);
  const env = values["password-env"] === true;
  const secret = (): string => randomBytes(24).toString("hex");
  const users = cubistUsers(
    names,
    { user: coordinatorUser, password: env ? "$CUBIST_NATS_PASS" : secret() },
    ids.map((id) => ({ id, password: env ? workerPasswordVariable(id) : secret() })),
  );
  const head = `# NATS users of Cubist (prefix "${names.prefix}"), from: cubist nats users${ids.length > 0 ? ` (${ids.length} worker(s))` : ""}\n`;
  await writeOutput(values.output as string | undefined, `${head}${usersConfig(users)}\n`);
  return EXIT.OK;
}
