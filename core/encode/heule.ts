/**
 * The four encodings of Heule 2008 (section 6): heule-compact (sections 3-4), heule-fbcolors (+ 5.1),
 * heule-explicit (+ 5.2) and heule-all (+ both). Every formula also gets the puzzle's hints as unit
 * clauses (section `hints`) and, with `cornerPairs`, the corner-pair clauses (section `cornerPairs`).
 * Sections are appended in the order compact, fbcolors, explicit, cornerPairs, hints; `sections` always
 * lists all five (0 when absent).
 */

import { InvalidPuzzleError } from "../errors.js";
import type { Puzzle } from "../puzzle.js";
import { addCompact, centrePatterns } from "./compact.js";
import { addCornerPairs } from "./corner-pairs.js";
import { addExplicit, addFbColors, addHints } from "./extensions.js";
import { ClauseBuffer, type Formula } from "./formula.js";
import { buildLayout, type EncodingLayout } from "./layout.js";
import { numberVariables } from "./numbering.js";
import { resolveEncodeOptions, type EncodeOptions } from "./options.js";
import { createHeuleVarMap } from "./varmap.js";

interface Parts {
  readonly fbcolors: boolean;
  readonly explicit: boolean;
}

/**
 * A cheap upper estimate of the Int32 slots the formula needs, so the buffer rarely grows (Eternity II
 * heule-all: about 23.9M estimated for 21.1M used). Capped at 2^25 slots (128 MiB); larger formulas grow.
 */
function estimateSlots(layout: EncodingLayout, parts: Parts): number {
  const cls = layout.classCells.map((l) => l.length);
  const colours = layout.classColours.map((l) => l.length);
  let slots = 3 * (cls[0] * cls[0] + cls[1] * cls[1]) * 4 + cls[2] * cls[2] * 20 * 4;
  slots += layout.diamonds * (Math.max(...colours, 1) ** 2) * 2;
  if (parts.fbcolors) slots += cls[2] * cls[2] * 4 * colours[1] * 3;
  if (parts.explicit) for (const n of cls) slots += ((n * n * (n - 1)) / 2) * 3;
  return Math.min(Math.max(1 << 16, Math.ceil(slots * 1.05)), 1 << 25);
}

function encodeHeule(name: string, puzzle: Puzzle, options: EncodeOptions | undefined, parts: Parts): Formula {
  const opts = resolveEncodeOptions(options);
  const layout = buildLayout(puzzle);
  const num = numberVariables(layout, opts.order);
  const varMap = createHeuleVarMap(layout, num);
  const cb = new ClauseBuffer(estimateSlots(layout, parts));
  const patterns = centrePatterns(layout);

  const compact = addCompact(cb, layout, num);
  const fbcolors = parts.fbcolors ? addFbColors(cb, layout, num, patterns) : 0;
  const explicit = parts.explicit ? addExplicit(cb, layout, num) : 0;
  const cornerPairs = opts.cornerPairs ? addCornerPairs(cb, layout, num) : 0;
  for (const h of puzzle.hints) {
    if (h.row < 0 || h.row >= layout.rows || h.col < 0 || h.col >= layout.cols) {
      throw new InvalidPuzzleError(puzzle.name ?? "<puzzle>", 0, `hint at (row ${h.row}, col ${h.col}) is off the board`);
    }
  }
  const hints = addHints(cb, layout, varMap, puzzle.hints);
  const sections = Object.freeze({ compact, fbcolors, explicit, cornerPairs, hints });
  return { encoding: name, numVars: num.numVars, clauses: cb, sections, varMap };
}

/** heule-compact: the compact translation (sections 3-4). */
export function encodeHeuleCompact(puzzle: Puzzle, options?: EncodeOptions): Formula {
  return encodeHeule("heule-compact", puzzle, options, { fbcolors: false, explicit: false });
}

/** heule-fbcolors: compact plus forbidden colour clauses (5.1, eq. 8). */
export function encodeHeuleFbcolors(puzzle: Puzzle, options?: EncodeOptions): Formula {
  return encodeHeule("heule-fbcolors", puzzle, options, { fbcolors: true, explicit: false });
}

/** heule-explicit: compact plus explicit one-on-one clauses (5.2, eqs. 9-11). */
export function encodeHeuleExplicit(puzzle: Puzzle, options?: EncodeOptions): Formula {
  return encodeHeule("heule-explicit", puzzle, options, { fbcolors: false, explicit: true });
}

/** heule-all: compact plus both extensions. */
export function encodeHeuleAll(puzzle: Puzzle, options?: EncodeOptions): Formula {
  return encodeHeule("heule-all", puzzle, options, { fbcolors: true, explicit: true });
}
