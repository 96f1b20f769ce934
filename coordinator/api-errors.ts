/**
 * The one mapping from domain errors to gRPC status codes (connect-es `ConnectError.from` style): every expected
 * error is a CubistError (core/errors.ts) and carries its status; anything else is INTERNAL.
 */
import { status as Status, type ServiceError, Metadata } from "@grpc/grpc-js";
import { CubistError, GRPC_STATUS } from "../core/errors.js";

/** A call that names a run or cube that does not exist. */
export class NotFoundError extends CubistError {
  override readonly name = "NotFoundError";
  override readonly grpcStatus = GRPC_STATUS.NOT_FOUND;
}

/** A call that is not allowed in the current state (resuming a finished run, re-splitting a closed cube). */
export class FailedPreconditionError extends CubistError {
  override readonly name = "FailedPreconditionError";
  override readonly grpcStatus = GRPC_STATUS.FAILED_PRECONDITION;
}

/** A feature whose field exists in the API but which is not built yet (all-solutions mode). */
export class UnimplementedError extends CubistError {
  override readonly name = "UnimplementedError";
  override readonly grpcStatus = GRPC_STATUS.UNIMPLEMENTED;
}

/** A run id that is taken (also by a finished run: ids are never reused). */
export class RunExistsError extends CubistError {
  override readonly name = "RunExistsError";
  override readonly grpcStatus = GRPC_STATUS.ALREADY_EXISTS;
  constructor(readonly runId: string) {
    super(`a run with id "${runId}" already exists`);
  }
}

/**
 * This coordinator does not lead (a standby, or one that just lost its lease): it changes nothing. The message names
 * the leader and its gRPC address when known, so that a client can go there (docs/operations.md "Leadership").
 */
export class NotLeaderError extends CubistError {
  override readonly name = "NotLeaderError";
  override readonly grpcStatus = GRPC_STATUS.UNAVAILABLE;
  constructor(readonly leader: { id: string; grpc: string } | null) {
    super(leader
      ? `this coordinator is a standby; the leader is ${leader.id}${leader.grpc ? ` (gRPC ${leader.grpc})` : ""}`
      : "this coordinator is a standby and no leader is known yet; try again in a few seconds");
  }
}

export function grpcStatusOf(err: unknown): Status {
  return err instanceof CubistError ? (err.grpcStatus as number as Status) : Status.INTERNAL;
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
