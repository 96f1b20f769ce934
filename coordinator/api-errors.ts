/**
 * The one mapping from domain errors to gRPC status codes (connect-es `ConnectError.from` style).
 */
import { status as Status, type ServiceError, Metadata } from "@grpc/grpc-js";
import { InvalidOptionError, InvalidPuzzleError } from "../core/errors.js";

/** A call that names a run or cube that does not exist. */
export class NotFoundError extends Error {
  override readonly name = "NotFoundError";
}

/** A call that is not allowed in the current state (resuming a finished run, re-splitting a closed cube). */
export class FailedPreconditionError extends Error {
  override readonly name = "FailedPreconditionError";
}

/** A feature whose field exists in the API but which is not built yet (all-solutions mode). */
export class UnimplementedError extends Error {
  override readonly name = "UnimplementedError";
}

/** Missing or wrong bearer token. */
export class UnauthenticatedError extends Error {
  override readonly name = "UnauthenticatedError";
}

export function grpcStatusOf(err: unknown): Status {
  if (err instanceof InvalidPuzzleError || err instanceof InvalidOptionError) return Status.INVALID_ARGUMENT;
  if (err instanceof NotFoundError) return Status.NOT_FOUND;
  if (err instanceof FailedPreconditionError) return Status.FAILED_PRECONDITION;
  if (err instanceof UnauthenticatedError) return Status.UNAUTHENTICATED;
  if (err instanceof UnimplementedError) return Status.UNIMPLEMENTED;
  if ((err as Error)?.name === "RunExistsError") return Status.ALREADY_EXISTS;
  return Status.INTERNAL;
}

export function toServiceError(err: unknown): Partial<ServiceError> {
  const code = grpcStatusOf(err);
  const message = code === Status.INTERNAL ? `internal error: ${(err as Error)?.message ?? String(err)}` : (err as Error).message;
  return { code, details: message, message, metadata: new Metadata() };
}
