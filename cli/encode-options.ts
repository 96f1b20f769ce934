/**
 * The encoding flags shared by `encode`, `solve` and the cluster commands.
 */
import { DEFAULT_ENCODING, encodingNames } from "../core/encode/names.js";
import { variableOrders, type EncodeOptions, type VariableOrder } from "../core/encode/options.js";
import type { OptionSpec, ParsedValues } from "./args.js";

export const ENCODING_OPTIONS: Record<string, OptionSpec> = {
  encoding: { type: "string", short: "e", arg: "E", description: "CNF encoding", choices: encodingNames, default: DEFAULT_ENCODING },
  order: { type: "string", arg: "O", description: "variable numbering order", choices: variableOrders },
  "corner-pairs": { type: "boolean", description: "add the redundant forbidden corner-pair clauses" },
};

export function encodeOptionsFrom(values: ParsedValues): EncodeOptions {
  const o: { order?: VariableOrder; cornerPairs?: boolean } = {};
  if (typeof values.order === "string") o.order = values.order as VariableOrder;
  if (values["corner-pairs"] === true) o.cornerPairs = true;
  return o;
}
