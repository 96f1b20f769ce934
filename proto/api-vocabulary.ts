/**
 * The API's cube states by name (proto/vocabulary.ts CUBE_STATE_NAMES). CubeState is an enum of the gRPC service's
 * file (proto/cubist/v1/api.proto), whose generated code loads @grpc/grpc-js: it is mapped here, apart from the
 * shared vocabulary, which the coordinator's pure model reads.
 */

import { CubeState } from "./gen/cubist/v1/api.js";
import { CUBE_STATE_NAMES, type CubeStateName } from "./vocabulary.js";

export function cubeStateName(state: CubeState): CubeStateName | "" {
  const name = CubeState[state];
  return name && state !== CubeState.CUBE_STATE_UNSPECIFIED ? (name.replace(/^CUBE_STATE_/, "").toLowerCase() as CubeStateName) : "";
}

/** "running" -> `CUBE_STATE_RUNNING`, or undefined for a name that is not a cube state. */
export function cubeStateOf(name: string): CubeState | undefined {
  if (!(CUBE_STATE_NAMES as readonly string[]).includes(name)) return undefined;
  return CubeState[`CUBE_STATE_${name.toUpperCase()}` as keyof typeof CubeState];
}

export { CubeState };
