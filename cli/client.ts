/**
 * The gRPC client the control commands use: `--coordinator HOST:PORT` (or CUBIST_COORDINATOR), optional TLS
 * and bearer token. Calls return promises; gRPC errors become one-line ClusterError messages with the status name.
 */

import { CubistError, InvalidOptionError, type Fault } from "../core/errors.js";
import { faultOfStatus } from "../coordinator/serve/api-errors.js";
import { credentials, Metadata, status as Status, type ServiceError, type ChannelCredentials } from "@grpc/grpc-js";
import { CubistServiceClient } from "../proto/gen/cubist/v1/api.js";
import type { OptionSpec, ParsedValues } from "./args.js";
import { fileProblem, readSmallFile } from "../cluster/read-bounded.js";
import { USER_METADATA_KEY } from "../coordinator/serve/actor.js";
import { hostname, userInfo } from "node:os";

/** The user this process runs as ("" when the system cannot say). */
function userName(): string {
  try {
    return userInfo().username;
  } catch {
    return process.env.USER ?? "";
  }
}

export const CLIENT_OPTIONS: Record<string, OptionSpec> = {
  coordinator: { type: "string", arg: "HOST:PORT", description: "coordinator gRPC address", env: "CUBIST_COORDINATOR", default: "127.0.0.1:50051" },
  token: { type: "string", arg: "TOKEN", description: "bearer token for the API", env: "CUBIST_AUTH_TOKEN" },
  tls: { type: "boolean", description: "connect with TLS", env: "CUBIST_TLS" },
  "tls-ca": { type: "string", arg: "FILE", description: "CA certificate to trust (implies --tls)", env: "CUBIST_TLS_CA" },
  "tls-cert": { type: "string", arg: "FILE", description: "client certificate for mutual TLS", env: "CUBIST_TLS_CERT" },
  "tls-key": { type: "string", arg: "FILE", description: "client key for mutual TLS", env: "CUBIST_TLS_KEY" },
  json: { type: "boolean", description: "print JSON (for scripts)" },
};

/** Where the address of an unreachable coordinator comes from, and how to give another one. */
export const ADDRESS_HINT = "is a coordinator running there? Give its address with --coordinator HOST:PORT or CUBIST_COORDINATOR";

/** A failed API call, with the gRPC status name. */
export class ClusterError extends CubistError {
  override readonly name = "ClusterError";
  override readonly fault: Fault;
  constructor(readonly code: Status, message: string) {
    super(message);
    this.fault = faultOfStatus(code);
  }
}

type Callback<T> = (err: ServiceError | null, res: T) => void;

export interface Api {
  readonly client: CubistServiceClient;
  readonly metadata: Metadata;
  call<Req, Res>(method: (req: Req, md: Metadata, cb: Callback<Res>) => unknown, req: Req): Promise<Res>;
  close(): void;
}

function channelCredentials(values: ParsedValues): ChannelCredentials {
  const ca = values["tls-ca"] as string | undefined;
  const cert = values["tls-cert"] as string | undefined;
  const key = values["tls-key"] as string | undefined;
  if (!values.tls && !ca && !cert) return credentials.createInsecure();
  const read = (f: string | undefined, flag: string): Buffer | null => {
    if (!f) return null;
    try {
      return readSmallFile(f);
    } catch (err) {
      throw new InvalidOptionError(flag, `${f}: ${fileProblem(err)}`);
    }
  };
  return credentials.createSsl(read(ca, "--tls-ca"), read(key, "--tls-key"), read(cert, "--tls-cert"));
}

/** The trailer a standby coordinator names the leader's gRPC address in (coordinator/errors.ts NotLeaderError). */
const LEADER_METADATA_KEY = "cubist-leader-grpc";

/** The leader's address a standby's refusal names, or null. */
function leaderOf(err: ServiceError): string | null {
  const v = err.code === Status.UNAVAILABLE ? err.metadata?.get(LEADER_METADATA_KEY)[0] : undefined;
  return typeof v === "string" && /^[^\s/]{1,255}:\d{1,5}$/.test(v) ? v : null;
}

/**
 * A client of the coordinator at `--coordinator`. A call that a standby refuses is made once more at the leader it
 * names (docs/operations.md "Leadership"), with the same credentials and token.
 */
export function connectApi(values: ParsedValues): Api {
  const address = String(values.coordinator ?? "127.0.0.1:50051");
  const open = (at: string): CubistServiceClient => new CubistServiceClient(at, channelCredentials(values), {
    "grpc.max_receive_message_length": 64 * 1024 * 1024,
  });
  const client = open(address);
  let leader: { address: string; client: CubistServiceClient } | null = null;
  const metadata = new Metadata();
  if (typeof values.token === "string" && values.token) metadata.set("authorization", `Bearer ${values.token}`);
  // Who asks, for the run's timeline (coordinator/serve/actor.ts): a claim, shown as such, granting nothing.
  metadata.set(USER_METADATA_KEY, `${userName()}@${hostname()}`);
  const callAt = <Req, Res>(c: CubistServiceClient, at: string, method: (req: Req, md: Metadata, cb: Callback<Res>) => unknown, req: Req, follow: boolean): Promise<Res> =>
    new Promise<Res>((resolve, reject) => {
      method.call(c, req, metadata, (err: ServiceError | null, res: Res) => {
        if (!err) return resolve(res);
        const next = follow ? leaderOf(err) : null;
        if (next === null || next === at) return reject(clusterError(err, at));
        if (leader?.address !== next) {
          leader?.client.close();
          leader = { address: next, client: open(next) };
        }
        callAt(leader.client, next, method, req, false).then(resolve, reject);
      });
    });
  return {
    // Once a standby named the leader, the streams (WatchRun, GetCertificate) go there too.
    get client() {
      return leader?.client ?? client;
    },
    metadata,
    call: (method, req) => callAt(leader?.client ?? client, leader?.address ?? address, method, req, true),
    close: () => {
      client.close();
      leader?.client.close();
    },
  };
}

export function clusterError(err: ServiceError, address: string): ClusterError {
  if (err.code === Status.UNAVAILABLE && /standby/.test(err.details ?? "")) return new ClusterError(err.code, `UNAVAILABLE: ${err.details}`);
  if (err.code === Status.UNAVAILABLE) {
    return new ClusterError(err.code, `coordinator at ${address} is unreachable (${err.details}); ${ADDRESS_HINT}`);
  }
  return new ClusterError(err.code, `${Status[err.code] ?? err.code}: ${err.details || err.message}`);
}
