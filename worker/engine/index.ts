/**
 * The native placement engine (engine/*.c, built to dist/engine/cubist-engine): problem text, process runner,
 * output parser. The portfolio (portfolio.ts) runs several engine configurations and Kissat side by side.
 */

export { engineProblem } from "./problem.js";
export { EngineOutputError, type EngineBest, type EngineProgress, type EngineStats } from "./output.js";
export { ENGINE_ORDERS, SCORE_FROM_PCT, SCORE_RAMP_PCT, SCORE_RESTART_NODES, EngineCrashedError, EngineNotFoundError, locateEngine, noEngineStats, runEngine, type EngineOptions, type EngineOrder, type EngineOutcome } from "./runner.js";
export {
  engineContender,
  firstProof,
  memberName,
  memberThreads,
  parsePortfolio,
  type Contender,
  type EngineMemberResult,
  type EngineRunContext,
  type MemberSpec,
  type RaceEntry,
} from "./portfolio.js";
