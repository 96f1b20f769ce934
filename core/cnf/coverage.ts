/**
 * The coverage of a cube set: the cubes (conjunctions of literals) cover the space when every assignment of the
 * variables satisfies at least one of them. Decided exactly by splitting on a variable: the set covers when the
 * cubes that allow v, with v dropped, cover, and the cubes that allow -v, with -v dropped, cover too; the empty cube
 * covers everything, no cube covers nothing. Splitting on the variable that occurs in the most cubes makes it linear
 * in the cubes times the depth for the leaves of a decision tree (core/cnf/lookahead.ts), whose root variable is
 * in every leaf. (Merging siblings greedily, as this once did, is not exact: a merge along another variable than the
 * tree's can leave two cubes without their siblings, and a covering set was reported as not covering.)
 */

/** The variable in the most cubes (0 when every cube is empty). */
function branchVariable(cubes: readonly (readonly number[])[]): number {
  const count = new Map<number, number>();
  let best = 0, most = 0;
  for (const c of cubes) {
    for (const l of c) {
      const v = Math.abs(l), n = (count.get(v) ?? 0) + 1;
      count.set(v, n);
      if (n > most) [best, most] = [v, n];
    }
  }
  return best;
}

/** The cubes that allow literal `l`, with `l` dropped. */
function under(cubes: readonly (readonly number[])[], l: number): number[][] {
  const out: number[][] = [];
  for (const c of cubes) if (!c.includes(-l)) out.push(c.filter((x) => x !== l));
  return out;
}

function covers(cubes: readonly (readonly number[])[]): boolean {
  if (cubes.length === 0) return false;
  if (cubes.some((c) => c.length === 0)) return true;
  const v = branchVariable(cubes);
  return covers(under(cubes, v)) && covers(under(cubes, -v));
}

/** True when the cubes (the open and refuted leaves together) cover every assignment. */
export function checkCoverage(cubes: readonly (readonly number[])[]): boolean {
  // A cube with a literal and its negation covers nothing; a repeated literal says nothing more.
  const kept = cubes.filter((c) => new Set(c.map(Math.abs)).size === new Set(c).size).map((c) => [...new Set(c)]);
  return covers(kept);
}
