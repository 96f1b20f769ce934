/**
 * cubist-placement: Cubist's own encoding, with rotation-aware placement variables and support clauses.
 * The model (placement-model.ts) lists the placements p(cell, unit, rot) that fit each cell; the numbering
 * (placement-numbering.ts) adds x(unit, cell) and the diamond colours y(k, c). Sections, in this order:
 *
 * - `cells`: every cell has at least one placement; two placements of a cell that show the same colours
 *   on all its inner sides exclude each other (pairwise). Other pairs need no clause: they differ on a
 *   diamond, which has one colour.
 * - `pieces`: x(unit, cell) <-> OR of the unit's placements there (when there are several); every unit
 *   stands on at least one cell; at most one cell (pairwise or sequential, option `pieceAmo`), or at most
 *   m cells for a merged unit of m identical pieces (sequential counter).
 * - `colours`: every inner diamond has exactly one colour of its class (pairwise at-most-one).
 * - `match`: a placement fixes the colours of the cell's diamonds: (¬p ∨ y(k, c)).
 * - `support` (option `support`): a colour on a diamond needs a placement on each of its two cells that
 *   shows it there: (¬y(k, c) ∨ OR p), a unit ¬y(k, c) when there is none.
 * - `symmetry` (`identical: "ordered"`): of two identical pieces i < j that no hint places, j stands on a
 *   later cell than i (cells of the class in increasing number): (¬x(j, q) ∨ OR_{q' < q} x(i, q')).
 * - `cornerPairs` (option `cornerPairs`): for each corner of a cell (two clockwise-adjacent sides with inner
 *   diamonds), every colour pair of the two diamonds' classes that no placement of the cell shows there is
 *   blocked: (¬y(k1, a) ∨ ¬y(k2, b)).
 * - `hints`: unit clauses, the literals of each hint's placement, each literal once.
 *
 * Every solution of the puzzle satisfies the formula and every model decodes to a solution; with `merged`
 * or `ordered`, identical pieces may be swapped relative to a given solution (see docs/encodings.md).
 */

import { InvalidOptionError, InvalidPuzzleError } from "../errors.js";
import type { Puzzle } from "../puzzle.js";
import { addPairwiseAmo, addSequentialAtMost } from "./cardinality.js";
import { ClauseBuffer, type Formula, type VarMap } from "./formula.js";
import {
  amoEncodings,
  identicalModes,
  resolveEncodeOptions,
  type AmoEncoding,
  type EncodeOptions,
  type IdenticalPieces,
  type VariableOrder,
} from "./options.js";
import { buildPlacementModel, type PlacementModel } from "./placement-model.js";
import { numberPlacements, type PlacementNumbering } from "./placement-numbering.js";
import { createPlacementVarMap } from "./placement-varmap.js";

/** The name cubist-placement is registered under. */
export const PLACEMENT_ENCODING = "cubist-placement";

/** The options of cubist-placement with every default filled in. */
export interface PlacementOptions {
  readonly order: VariableOrder;
  readonly cornerPairs: boolean;
  readonly identical: IdenticalPieces;
  readonly pieceAmo: AmoEncoding;
  readonly support: boolean;
  readonly reverseOrder: boolean;
}

/** The defaults of cubist-placement (chosen by the measurements in docs/encodings.md). */
export const PLACEMENT_DEFAULTS: PlacementOptions = Object.freeze({
  order: "paper",
  cornerPairs: false,
  identical: "merged",
  pieceAmo: "sequential",
  support: true,
  reverseOrder: false,
});

/** Fills in the cubist-placement defaults and checks the values; throws InvalidOptionError. */
export function resolvePlacementOptions(options: EncodeOptions = {}): PlacementOptions {
  const common = resolveEncodeOptions({ order: options.order ?? PLACEMENT_DEFAULTS.order, cornerPairs: options.cornerPairs });
  const identical = options.identical ?? PLACEMENT_DEFAULTS.identical;
  if (!(identicalModes as readonly string[]).includes(identical)) {
    throw new InvalidOptionError("identical", `unknown mode '${String(identical)}' (known: ${identicalModes.join(", ")})`);
  }
  const pieceAmo = options.pieceAmo ?? PLACEMENT_DEFAULTS.pieceAmo;
  if (!(amoEncodings as readonly string[]).includes(pieceAmo)) {
    throw new InvalidOptionError("pieceAmo", `unknown encoding '${String(pieceAmo)}' (known: ${amoEncodings.join(", ")})`);
  }
  const flag = (name: "support" | "reverseOrder"): boolean => {
    const v = options[name] ?? PLACEMENT_DEFAULTS[name];
    if (typeof v !== "boolean") throw new InvalidOptionError(name, `must be true or false, got ${String(v)}`);
    return v;
  };
  return Object.freeze({ ...common, identical, pieceAmo, support: flag("support"), reverseOrder: flag("reverseOrder") });
}

/** Writes the sections; `allocate` hands out auxiliary variables after the main ones. */
class Writer {
  readonly cb: ClauseBuffer;
  private next: number;

  constructor(readonly model: PlacementModel, readonly num: PlacementNumbering, readonly opts: PlacementOptions) {
    this.next = num.mainVars + 1;
    this.cb = new ClauseBuffer(estimateSlots(model, opts));
  }

  get numVars(): number {
    return this.next - 1;
  }

  readonly allocate = (): number => this.next++;

  y(k: number, colour: number): number {
    const { diaClass, colourIndex } = this.model.layout;
    const idx = colour < colourIndex[diaClass[k]].length ? colourIndex[diaClass[k]][colour] : -1;
    return idx < 0 ? 0 : this.num.yBase[k] + this.num.yStep * idx;
  }

  section(fn: () => void): number {
    const start = this.cb.count;
    fn();
    return this.cb.count - start;
  }

  cells(): void {
    const { cellStart, side } = this.model;
    const { cells } = this.model.layout;
    const { p } = this.num;
    for (let cell = 0; cell < cells; cell++) {
      const lo = cellStart[cell], hi = cellStart[cell + 1];
      const alo: number[] = [];
      const same = new Map<string, number[]>();
      for (let pl = lo; pl < hi; pl++) {
        alo.push(p[pl]);
        const key = `${side[4 * pl]},${side[4 * pl + 1]},${side[4 * pl + 2]},${side[4 * pl + 3]}`;
        const group = same.get(key);
        if (group) group.push(p[pl]);
        else same.set(key, [p[pl]]);
      }
      this.cb.add(alo);
      for (const group of same.values()) if (group.length > 1) addPairwiseAmo(this.cb, group);
    }
  }

  pieces(): void {
    const { units, copies, cellStart, plUnit } = this.model;
    const { cells } = this.model.layout;
    const { p, x } = this.num;
    const where: number[][] = Array.from({ length: units }, () => []);
    for (let cell = 0; cell < cells; cell++) {
      let lo = cellStart[cell];
      const end = cellStart[cell + 1];
      while (lo < end) {
        let hi = lo + 1;
        while (hi < end && plUnit[hi] === plUnit[lo]) hi++;
        const u = plUnit[lo];
        const xv = x[u * cells + cell];
        where[u].push(xv);
        if (hi - lo > 1) {
          const lits = [-xv];
          for (let pl = lo; pl < hi; pl++) {
            lits.push(p[pl]);
            this.cb.add2(-p[pl], xv);
          }
          this.cb.add(lits);
        }
        lo = hi;
      }
    }
    for (let u = 0; u < units; u++) {
      this.cb.add(where[u]);
      const m = copies[u].length;
      if (m === 1 && this.opts.pieceAmo === "pairwise") addPairwiseAmo(this.cb, where[u]);
      else addSequentialAtMost(this.cb, where[u], m, this.allocate);
    }
  }

  colours(): void {
    const { diaClass, classColours } = this.model.layout;
    for (let k = 0; k < this.model.diamonds; k++) {
      const lits = classColours[diaClass[k]].map((c) => this.y(k, c));
      this.cb.add(lits);
      addPairwiseAmo(this.cb, lits);
    }
  }

  match(): void {
    const { cellStart, side } = this.model;
    const { cells, cellDia } = this.model.layout;
    for (let cell = 0; cell < cells; cell++) {
      for (let pl = cellStart[cell]; pl < cellStart[cell + 1]; pl++) {
        for (let d = 0; d < 4; d++) {
          const c = side[4 * pl + d];
          if (c < 0) continue;
          const y = this.y(cellDia[cell * 4 + d], c);
          if (y === 0) this.cb.add1(-this.num.p[pl]);
          else this.cb.add2(-this.num.p[pl], y);
        }
      }
    }
  }

  support(): void {
    const { cellStart, side } = this.model;
    const { diaCells, diaClass, classColours, cellDia } = this.model.layout;
    const { p } = this.num;
    for (let k = 0; k < this.model.diamonds; k++) {
      for (const cell of [diaCells[2 * k], diaCells[2 * k + 1]]) {
        const d = cellDia[cell * 4] === k ? 0 : cellDia[cell * 4 + 1] === k ? 1 : cellDia[cell * 4 + 2] === k ? 2 : 3;
        const byColour = new Map<number, number[]>();
        for (const c of classColours[diaClass[k]]) byColour.set(c, [-this.y(k, c)]);
        for (let pl = cellStart[cell]; pl < cellStart[cell + 1]; pl++) byColour.get(side[4 * pl + d])?.push(p[pl]);
        for (const lits of byColour.values()) this.cb.add(lits);
      }
    }
  }

  symmetry(): void {
    const { twins, layout } = this.model;
    const { cells, classCells, pieceClass, puzzle } = layout;
    const { x } = this.num;
    // A hinted piece keeps its cell, so only the free copies are ordered among themselves.
    const hinted = new Set(puzzle.hints.map((h) => h.piece));
    for (const all of twins) {
      const group = all.filter((i) => !hinted.has(i));
      const order = [...classCells[pieceClass[group[0]]]].sort((a, b) => a - b);
      for (let g = 1; g < group.length; g++) {
        const i = group[g - 1], j = group[g];
        const earlier: number[] = [];
        for (const q of order) {
          this.cb.add([-x[j * cells + q], ...earlier]);
          earlier.push(x[i * cells + q]);
        }
      }
    }
  }

  cornerPairs(): void {
    const { cellStart, side } = this.model;
    const { cells, cellDia, diaClass, classColours } = this.model.layout;
    for (let cell = 0; cell < cells; cell++) {
      for (let d = 0; d < 4; d++) {
        const d2 = (d + 1) & 3;
        const k1 = cellDia[cell * 4 + d], k2 = cellDia[cell * 4 + d2];
        if (k1 < 0 || k2 < 0 || k1 >= this.model.diamonds || k2 >= this.model.diamonds) continue;
        const seen = new Set<number>();
        for (let pl = cellStart[cell]; pl < cellStart[cell + 1]; pl++) seen.add(side[4 * pl + d] * 65536 + side[4 * pl + d2]);
        for (const a of classColours[diaClass[k1]]) {
          for (const b of classColours[diaClass[k2]]) if (!seen.has(a * 65536 + b)) this.cb.add2(-this.y(k1, a), -this.y(k2, b));
        }
      }
    }
  }

  hints(varMap: VarMap): void {
    const seen = new Set<number>();
    const { puzzle, cols } = this.model.layout;
    for (const h of puzzle.hints) {
      for (const lit of varMap.placementLiterals({ cell: h.row * cols + h.col, piece: h.piece, rot: h.rot })) {
        if (seen.has(lit)) continue;
        seen.add(lit);
        this.cb.add1(lit);
      }
    }
  }
}

/** An upper estimate of the Int32 slots needed, so the clause buffer rarely grows. Capped at 2^25. */
function estimateSlots(model: PlacementModel, opts: PlacementOptions): number {
  const { cells, classCells } = model.layout;
  let slots = model.count * (4 * 3 + 3 + 2) + cells * 8;
  if (opts.pieceAmo === "pairwise") for (const list of classCells) slots += (list.length * list.length * (list.length - 1) / 2) * 3;
  else slots += model.units * cells * 10;
  return Math.min(Math.max(1 << 16, Math.ceil(slots * 1.1)), 1 << 25);
}

/** cubist-placement: see the module comment. */
export function encodeCubistPlacement(puzzle: Puzzle, options?: EncodeOptions): Formula {
  const opts = resolvePlacementOptions(options);
  for (const h of puzzle.hints) {
    if (h.row < 0 || h.row >= puzzle.rows || h.col < 0 || h.col >= puzzle.cols) {
      throw new InvalidPuzzleError(puzzle.name ?? "<puzzle>", 0, `hint at (row ${h.row}, col ${h.col}) is off the board`);
    }
  }
  const model = buildPlacementModel(puzzle, opts.identical);
  const num = numberPlacements(model, opts.order, opts.reverseOrder);
  const w = new Writer(model, num, opts);
  const cells = w.section(() => w.cells());
  const pieces = w.section(() => w.pieces());
  const colours = w.section(() => w.colours());
  const match = w.section(() => w.match());
  const support = opts.support ? w.section(() => w.support()) : 0;
  const symmetry = opts.identical === "ordered" ? w.section(() => w.symmetry()) : 0;
  const cornerPairs = opts.cornerPairs ? w.section(() => w.cornerPairs()) : 0;
  const varMap = createPlacementVarMap(model, num, w.numVars, puzzle.hints);
  const hints = w.section(() => w.hints(varMap));
  const sections = Object.freeze({ cells, pieces, colours, match, support, symmetry, cornerPairs, hints });
  return { encoding: PLACEMENT_ENCODING, numVars: w.numVars, clauses: w.cb, sections, varMap };
}
