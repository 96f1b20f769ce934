/**
 * The coordinator's own errors, members of the one error family (core/errors.ts: each says whose fault it is). The
 * shell throws them (a standby refusing a change, a run id taken) and so do the API's calls (a run that does not
 * exist, a call the run's state does not allow); serve/api-errors.ts maps them to gRPC and HTTP statuses, once.
 */
import { CubistError } from "../core/errors.js";

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
