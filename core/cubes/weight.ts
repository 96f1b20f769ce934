/**
 * Cube weights. A cube's weight is the product of 1/branching[i] over its split steps; the double in
 * `Cube.weight` is for display, the branching list gives the exact value as a BigInt fraction.
 */

/** An exact non-negative rational; `den` > 0, not necessarily reduced. */
export interface Rational {
  readonly num: bigint;
  readonly den: bigint;
}

/** The weight of a branching list as a double. */
export function weightOf(branching: readonly number[]): number {
  let w = 1;
  for (const b of branching) w /= b;
  return w;
}

/** The exact weight of a branching list: 1 / product(branching). */
export function exactWeight(branching: readonly number[]): Rational {
  let den = 1n;
  for (const b of branching) den *= BigInt(b);
  return { num: 1n, den };
}

function gcd(a: bigint, b: bigint): bigint {
  while (b !== 0n) [a, b] = [b, a % b];
  return a < 0n ? -a : a;
}

/** a + b, reduced. */
export function addRational(a: Rational, b: Rational): Rational {
  const num = a.num * b.den + b.num * a.den;
  const den = a.den * b.den;
  const g = gcd(num, den);
  return g > 1n ? { num: num / g, den: den / g } : { num, den };
}

/**
 * The exact sum of the weights of many branching lists. Terms are grouped by denominator first, so a
 * few hundred thousand cubes sum in well under a second.
 */
export function sumWeights(lists: Iterable<readonly number[]>): Rational {
  const byDen = new Map<bigint, bigint>();
  for (const l of lists) {
    const { den } = exactWeight(l);
    byDen.set(den, (byDen.get(den) ?? 0n) + 1n);
  }
  let total: Rational = { num: 0n, den: 1n };
  for (const [den, count] of byDen) total = addRational(total, { num: count, den });
  return total;
}

/** a === b as rationals. */
export function equalRational(a: Rational, b: Rational): boolean {
  return a.num * b.den === b.num * a.den;
}
