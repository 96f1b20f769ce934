/**
 * A small seeded PRNG: xoshiro128** (Blackman and Vigna) with its 128-bit state expanded from a 32-bit
 * seed by splitmix32. Only 32-bit integer arithmetic (Math.imul, >>> 0) is used, so the same seed gives
 * the same sequence on every machine and Node version. Not for cryptography.
 *
 * A seed is a uint32 (0..2^32-1) or a string, which is hashed to a uint32 with FNV-1a (UTF-16 code units).
 */

import { InvalidOptionError } from "./errors.js";

/** A deterministic random source. */
export interface Random {
  /** The uint32 seed this generator started from. */
  readonly seed: number;
  /** Next uniform integer in 0..2^32-1. */
  nextUint32(): number;
  /** Next uniform integer in 0..n-1, without modulo bias; n in 1..2^32. */
  nextInt(n: number): number;
  /** Next uniform float in [0, 1) with 32 bits of randomness. */
  nextFloat(): number;
  /** Shuffles `array` in place (Fisher-Yates) and returns it. */
  shuffle<T>(array: T[]): T[];
}

/** A seed as given by a user: a uint32 or any string. */
export type Seed = number | string;

/** FNV-1a over the UTF-16 code units of `s`, as a uint32. */
export function hashSeed(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** The uint32 for a seed; throws InvalidOptionError for numbers that are not uint32. */
export function seedToUint32(seed: Seed): number {
  if (typeof seed === "string") return hashSeed(seed);
  if (!Number.isInteger(seed) || seed < 0 || seed > 0xffffffff) {
    throw new InvalidOptionError("seed", `must be an integer in 0..4294967295 or a string, got ${seed}`);
  }
  return seed;
}

/** Creates a generator; equal seeds give equal sequences. */
export function createRandom(seed: Seed): Random {
  const start = seedToUint32(seed);
  let sm = start;
  const splitmix32 = (): number => {
    sm = (sm + 0x9e3779b9) >>> 0;
    let z = sm;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
    return (z ^ (z >>> 16)) >>> 0;
  };
  let a = splitmix32(), b = splitmix32(), c = splitmix32(), d = splitmix32();
  if ((a | b | c | d) === 0) a = 1; // the all-zero state is a fixed point

  const nextUint32 = (): number => {
    const t = b << 9;
    let r = Math.imul(b, 5);
    r = Math.imul((r << 7) | (r >>> 25), 9);
    c ^= a;
    d ^= b;
    b ^= c;
    a ^= d;
    c ^= t;
    d = (d << 11) | (d >>> 21);
    return r >>> 0;
  };

  const nextInt = (n: number): number => {
    if (!Number.isInteger(n) || n < 1 || n > 0x100000000) {
      throw new InvalidOptionError("n", `nextInt needs an integer in 1..2^32, got ${n}`);
    }
    // Reject the top partial block so every residue is equally likely.
    const limit = 0x100000000 - (0x100000000 % n);
    for (;;) {
      const x = nextUint32();
      if (x < limit) return x % n;
    }
  };

  return {
    seed: start,
    nextUint32,
    nextInt,
    nextFloat: () => nextUint32() / 0x100000000,
    shuffle<T>(array: T[]): T[] {
      for (let i = array.length - 1; i > 0; i--) {
        const j = nextInt(i + 1);
        const tmp = array[i];
        array[i] = array[j];
        array[j] = tmp;
      }
      return array;
    },
  };
}
