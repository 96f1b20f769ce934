/**
 * The one mapping between errors and statuses, at the API boundary (connect-es `ConnectError.from` style): the
 * coordinator's own errors (coordinator/errors.ts) by class, every other expected error by its fault (core/errors.ts:
 * the task's -> INVALID_ARGUMENT, transient -> UNAVAILABLE), anything else INTERNAL. The dashboard's HTTP API answers
 * with the HTTP status of that gRPC status (`httpErrorOf`), so both APIs fail alike. The CLI reads a status back as a
 * fault with faultOfStatus.
 */
import { status as Status, type ServiceError, Metadata } from "@grpc/grpc-js";
import { CubistError, type Fault } from "../../core/errors.js";
import { FailedPreconditionError, NotFoundError, NotLeaderError, RunExistsError, UnimplementedError } from "../errors.js";

const STATUS_OF_FAULT: Readonly<Record<Fault, Status>> = {
  task: Status.INVALID_ARGUMENT,
  transient: Status.UNAVAILABLE,
  worker: Status.INTERNAL,
  internal: Status.INTERNAL,
};

export function grpcStatusOf(err: unknown): Status {
  if (err instanceof NotFoundError) return Status.NOT_FOUND;
  if (err instanceof FailedPreconditionError) return Status.FAILED_PRECONDITION;
  if (err instanceof UnimplementedError) return Status.UNIMPLEMENTED;
  if (err instanceof RunExistsError) return Status.ALREADY_EXISTS;
  return err instanceof CubistError ? STATUS_OF_FAULT[err.fault] : Status.INTERNAL;
}

/** The fault of a failed call as its client sees it: the request's, a passing failure, or the server's own. */
export function faultOfStatus(code: Status): Fault {
  switch (code) {
    case Status.INVALID_ARGUMENT: case Status.NOT_FOUND: case Status.ALREADY_EXISTS: case Status.FAILED_PRECONDITION:
    case Status.UNIMPLEMENTED: case Status.UNAUTHENTICATED: case Status.PERMISSION_DENIED: case Status.OUT_OF_RANGE:
      return "task";
    case Status.UNAVAILABLE: case Status.DEADLINE_EXCEEDED: case Status.RESOURCE_EXHAUSTED: case Status.ABORTED:
      return "transient";
    default:
      return "internal";
  }
}

/** The trailer that carries the leader's gRPC address on a NotLeaderError (the CLI follows it). */
export const LEADER_METADATA_KEY = "cubist-leader-grpc";

/** A failed call's status and the message its client gets (an internal error's says so). */
function statusOf(err: unknown): { code: Status; message: string } {
  const code = grpcStatusOf(err);
  const message = code === Status.INTERNAL ? `internal error: ${(err as Error)?.message ?? String(err)}` : (err as Error).message;
  return { code, message };
}

export function toServiceError(err: unknown): Partial<ServiceError> {
  const { code, message } = statusOf(err);
  const metadata = new Metadata();
  if (err instanceof NotLeaderError && err.leader?.grpc) metadata.set(LEADER_METADATA_KEY, err.leader.grpc);
  return { code, details: message, message, metadata };
}

/** Who is at fault for an HTTP answer other than 200: a 4xx the request's, a 503 a passing one, any other the server's. */
function faultOfHttp(status: number): Fault {
  if (status >= 400 && status < 500) return "task";
  return status === 503 ? "transient" : "internal";
}

/** An HTTP answer other than 200 (the dashboard's API), with the message sent as `{"error": ...}`. */
export class HttpError extends CubistError {
  override readonly name = "HttpError";
  override readonly fault: Fault;
  constructor(readonly status: number, message: string) {
    super(message);
    this.fault = faultOfHttp(status);
  }
}

const HTTP_OF_GRPC: Partial<Record<Status, number>> = {
  [Status.INVALID_ARGUMENT]: 400,
  [Status.NOT_FOUND]: 404,
  [Status.ALREADY_EXISTS]: 409,
  [Status.FAILED_PRECONDITION]: 409,
  [Status.UNAUTHENTICATED]: 401,
  [Status.UNIMPLEMENTED]: 501,
};

/** An error of an API call as the dashboard's HTTP API answers it: the HTTP status of its gRPC status, the same message. */
export function httpErrorOf(err: unknown): HttpError {
  if (err instanceof HttpError) return err;
  const { code, message } = statusOf(err);
  return new HttpError(HTTP_OF_GRPC[code] ?? 500, message);
}
