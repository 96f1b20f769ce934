/**
 * "Did you mean" for the command line: the known name closest to a mistyped option or command (`--thread` ->
 * `--threads`, `slove` -> `solve`). Pure: the caller passes the candidates and words the message.
 */

/** Levenshtein distance (insertions, deletions, substitutions; a swap of two neighbours counts as one). */
export function editDistance(a: string, b: string): number {
  const rows = a.length + 1, cols = b.length + 1;
  const d: number[][] = Array.from({ length: rows }, (_, i) => Array.from({ length: cols }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.length][b.length];
}

/**
 * The candidate a user most likely meant by `word`, or undefined when none is close: within a third of the
 * word's length in edits (at least 1, at most 3), or a candidate the word is a prefix of (`--cert` -> `--certify`)
 * when only one is. Ties go to the earlier candidate.
 */
export function closestName(word: string, candidates: readonly string[]): string | undefined {
  const w = word.toLowerCase();
  const limit = Math.min(3, Math.max(1, Math.floor(w.length / 3)));
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const c of candidates) {
    const distance = editDistance(w, c.toLowerCase());
    if (distance < bestDistance) {
      best = c;
      bestDistance = distance;
    }
  }
  if (best !== undefined && bestDistance <= limit) return best;
  const prefixed = w.length >= 3 ? candidates.filter((c) => c.toLowerCase().startsWith(w)) : [];
  return prefixed.length === 1 ? prefixed[0] : undefined;
}
