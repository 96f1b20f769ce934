/**
 * The NATS flags every long-running process accepts (and their environment variables).
 */
import type { OptionSpec, ParsedValues } from "./args.js";
import { fileProblem, readSmallFile } from "../cluster/read-bounded.js";
import { DEFAULT_PING_INTERVAL_MS, type NatsOptions } from "../cluster/nats.js";
import { InvalidOptionError } from "../core/errors.js";


export const NATS_OPTIONS: Record<string, OptionSpec> = {
  nats: { type: "string", arg: "URL", description: "NATS server URL(s), comma-separated", env: "CUBIST_NATS_URL", default: "nats://127.0.0.1:4222" },
  "nats-user": { type: "string", arg: "USER", description: "NATS user name", env: "CUBIST_NATS_USER" },
  "nats-pass": { type: "string", arg: "PASS", description: "NATS password", env: "CUBIST_NATS_PASS" },
  "nats-pass-file": { type: "string", arg: "FILE", description: "read the NATS password from this file (a mounted secret; --nats-pass wins)", env: "CUBIST_NATS_PASS_FILE" },
  "nats-token": { type: "string", arg: "TOKEN", description: "NATS token", env: "CUBIST_NATS_TOKEN" },
  "nats-creds": { type: "string", arg: "FILE", description: "NATS credentials file (JWT + nkey)", env: "CUBIST_NATS_CREDS" },
  "nats-tls-ca": { type: "string", arg: "FILE", description: "CA certificate(s) to trust for NATS TLS", env: "CUBIST_NATS_TLS_CA" },
  "nats-tls-cert": { type: "string", arg: "FILE", description: "client certificate for NATS mutual TLS", env: "CUBIST_NATS_TLS_CERT" },
  "nats-tls-key": { type: "string", arg: "FILE", description: "client key for NATS mutual TLS", env: "CUBIST_NATS_TLS_KEY" },
  "nats-ping-interval": {
    type: "number", arg: "S", description: "seconds between pings to the NATS server: a silent network cut is noticed after 3 to 4 of them, then the client reconnects",
    env: "CUBIST_NATS_PING_INTERVAL", min: 0.1, max: 3600, default: DEFAULT_PING_INTERVAL_MS / 1000,
  },
  prefix: { type: "string", arg: "P", description: "name prefix of the streams, buckets and subjects", env: "CUBIST_PREFIX", default: "cubist" },
};

export function natsOptionsFrom(values: ParsedValues, name: string): NatsOptions {
  const s = (k: string): string | undefined => (typeof values[k] === "string" ? (values[k] as string) : undefined);
  return {
    servers: s("nats") ?? "nats://127.0.0.1:4222",
    name,
    user: s("nats-user"),
    pass: s("nats-pass") ?? passFromFile(s("nats-pass-file")),
    token: s("nats-token"),
    credsFile: s("nats-creds"),
    tlsCa: s("nats-tls-ca"),
    tlsCert: s("nats-tls-cert"),
    tlsKey: s("nats-tls-key"),
    pingIntervalMs: typeof values["nats-ping-interval"] === "number" ? Math.round(values["nats-ping-interval"] * 1000) : undefined,
  };
}


function passFromFile(file: string | undefined): string | undefined {
  if (file === undefined) return undefined;
  try {
    const pass = readSmallFile(file).toString("utf8").trim();
    if (pass === "") throw new Error("the file is empty");
    return pass;
  } catch (err) {
    throw new InvalidOptionError("--nats-pass-file", `${file}: ${fileProblem(err)}`);
  }
}
