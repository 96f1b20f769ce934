/**
 * The control commands' view of the coordinator's API: cli/client.ts's connection with friendlier failures
 * (UNAUTHENTICATED says which flag or variable carries the token) and the WatchRun stream as a promise.
 *
 * Every failure is a ClusterError whose message is one line: `STATUS_NAME: details`, or, for an unreachable
 * coordinator, `coordinator at HOST:PORT is unreachable (...)`.
 */

import { status as Status, type ServiceError } from "@grpc/grpc-js";
import type { RunEvent, WatchRunRequest } from "../proto/gen/cubist/v1/api.js";
import type { ParsedValues } from "./args.js";
import { ClusterError, clusterError, connectApi, type Api } from "./client.js";

export const TOKEN_HINT = "pass --token TOKEN or set CUBIST_AUTH_TOKEN";

/**
 * Adds the token hint to an UNAUTHENTICATED error and drops grpc-js's empty "Resolution note" from an
 * unreachable one; other errors pass unchanged.
 */
export function withHint(err: unknown): unknown {
  if (!(err instanceof ClusterError)) return err;
  if (err.code === Status.UNAUTHENTICATED && !err.message.includes(TOKEN_HINT)) {
    return new ClusterError(err.code, `${err.message}; ${TOKEN_HINT}`);
  }
  if (err.code === Status.UNAVAILABLE && /\. Resolution note: \);/.test(err.message)) {
    return new ClusterError(err.code, err.message.replace(/\. Resolution note: \);/, ");"));
  }
  return err;
}

export interface ControlApi extends Api {
  /** The coordinator address the commands talk to. */
  readonly address: string;
}

export function openControlApi(values: ParsedValues): ControlApi {
  const api = connectApi(values);
  const address = String(values.coordinator ?? "127.0.0.1:50051");
  return {
    get client() {
      return api.client;
    },
    metadata: api.metadata,
    close: () => api.close(),
    address,
    async call(method, req) {
      try {
        return await api.call(method, req);
      } catch (err) {
        throw withHint(err);
      }
    },
  };
}

/** Runs `fn` with a connection that is always closed afterwards. */
export async function withControlApi<T>(values: ParsedValues, fn: (api: ControlApi) => Promise<T>): Promise<T> {
  const api = openControlApi(values);
  try {
    return await fn(api);
  } finally {
    api.close();
  }
}

/**
 * Streams WatchRun events to `onEvent` until the server ends the stream ("ended") or `signal` aborts it
 * ("aborted": the run itself is not touched). Errors reject as ClusterError.
 */
export function watchRunEvents(
  api: ControlApi,
  request: WatchRunRequest,
  onEvent: (ev: RunEvent) => void,
  signal?: AbortSignal,
): Promise<"ended" | "aborted"> {
  return new Promise((resolve, reject) => {
    const stream = api.client.watchRun(request, api.metadata);
    let settled = false;
    const settle = (fn: () => void): void => {
      if (settled) return;
      settled = true;
      signal?.removeEventListener("abort", onAbort);
      fn();
    };
    const onAbort = (): void => {
      settle(() => resolve("aborted"));
      stream.cancel();
    };
    stream.on("data", (ev: RunEvent) => {
      if (settled) return;
      try {
        onEvent(ev);
      } catch (err) {
        settle(() => reject(err));
        stream.cancel();
      }
    });
    stream.on("error", (err: ServiceError) => {
      if (err.code === Status.CANCELLED && signal?.aborted) return settle(() => resolve("aborted"));
      settle(() => reject(withHint(clusterError(err, api.address))));
    });
    // 'end' comes after the last 'data' (an error status comes as 'error' instead).
    stream.on("end", () => settle(() => resolve("ended")));
    if (signal?.aborted) onAbort();
    else signal?.addEventListener("abort", onAbort, { once: true });
  });
}
