/**
 * The coverage of a cube set: the cubes (conjunctions of literals) cover the space when every assignment of the
 * variables satisfies at least one of them. For the leaves of a decision tree (core/cnf/lookahead.ts) this is shown by
 * merging siblings: C and l and C and -l merge into C, until the empty cube (true) is reached. The check takes any
 * set of cubes; a set it cannot merge to the empty cube is reported as not covering, which is exact for tree-shaped
 * sets.
 */

/** A canonical key of a cube: its literals sorted by variable. */
function keyOf(cube: readonly number[]): string {
  return [...cube].sort((a, b) => Math.abs(a) - Math.abs(b) || a - b).join(" ");
}

/** True when the cubes (the open and refuted leaves together) merge to the empty cube: they cover every assignment. */
export function checkCoverage(cubes: readonly (readonly number[])[]): boolean {
  const present = new Map<string, number[]>();
  const queue: number[][] = [];
  for (const c of cubes) {
    const sorted = keyOf(c) === "" ? [] : keyOf(c).split(" ").map(Number);
    if (new Set(sorted.map(Math.abs)).size !== sorted.length) continue; // contradictory or repeated: covers nothing new
    present.set(keyOf(sorted), sorted);
    queue.push(sorted);
  }
  while (queue.length > 0) {
    if (present.has("")) return true;
    const cube = queue.pop()!;
    const key = keyOf(cube);
    if (!present.has(key)) continue;
    for (let i = 0; i < cube.length; i++) {
      const sibling = [...cube];
      sibling[i] = -sibling[i];
      const sibKey = keyOf(sibling);
      if (!present.has(sibKey)) continue;
      present.delete(key);
      present.delete(sibKey);
      const parent = cube.filter((_, k) => k !== i);
      present.set(keyOf(parent), parent);
      queue.push(parent);
      break;
    }
  }
  return present.has("");
}
