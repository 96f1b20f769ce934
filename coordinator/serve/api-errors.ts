/**
 * The one mapping between errors and gRPC status codes, at the API boundary (connect-es `ConnectError.from`
 * style): the API's own errors by class, every other expected error by its fault (core/errors.ts: the task's ->
 * INVALID_ARGUMENT, transient -> UNAVAILABLE), anything else INTERNAL. The CLI reads a status back as a fault
 * with faultOfStatus.
 */
import { status as Status, type ServiceError, Metadata } from "@grpc/grpc-js";
import { CubistError, type Fault } from "../../core/errors.js";

/** A call that names a run or cube that does not exist. */
export class NotFoundError extends CubistError {
  override readonly name = "NotFoundError";
  override readonly fault = "task";
}

/** A call that is not allowed in the current state (resuming a finished run, re-splitting a closed cube). */
export class FailedPreconditionError extends CubistError {
  override readonly name = "FailedPreconditionError";
  override readonly fault = "task";
}

/** A feature whose field exists in the API but which is not built yet (all-solutions mode). */
export class UnimplementedError extends CubistError {
  override readonly name = "UnimplementedError";
  override readonly fault = "task";
}

/** A run id that is taken (also by a finished run: ids are never reused). */
export class RunExistsError extends CubistError {
  override readonly name = "RunExistsError";
  override readonly fault = "task";
  constructor(readonly runId: string) {
    super(`a run with id "${runId}" already exists`);
  }
}

/**
 * This coordinator does not lead (a standby, or one that just lost its lease): it changes nothing. The message names
 * the leader and its gRPC address when known, so that a client can go there (docs/operations.md "Leadership").
 * Transient: the call succeeds at the leader, or here once this coordinator leads.
 */
export class NotLeaderError extends CubistError {
  override readonly name = "NotLeaderError";
  override readonly fault = "transient";
  constructor(readonly leader: { id: string; grpc: string } | null) {
    super(leader
      ? `this coordinator is a standby; the leader is ${leader.id}${leader.grpc ? ` (gRPC ${leader.grpc})` : ""}`
      : "this coordinator is a standby and no leader is known yet; try again in a few seconds");
  }
}

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

export function toServiceError(err: unknown): Partial<ServiceError> {
  const code = grpcStatusOf(err);
  const message = code === Status.INTERNAL ? `internal error: ${(err as Error)?.message ?? String(err)}` : (err as Error).message;
  const metadata = new Metadata();
  if (err instanceof NotLeaderError && err.leader?.grpc) metadata.set(LEADER_METADATA_KEY, err.leader.grpc);
  return { code, details: message, message, metadata };
}
