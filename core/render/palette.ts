/**
 * Colours and labels of edge colours, shared by the renderers. Colour 0 is the grey rim colour.
 *
 * `colourHex(k)` is fixed for every k: a palette of 25 distinct colours (grey first), none of them near the white of
 * an empty cell, and, beyond it,
 * a deterministic generator (golden-angle hues, alternating lightness). Labels are numbers, or letters
 * as the e2.bucas.name viewer writes them (a = grey, b = 1, ...).
 */

import { InvalidOptionError } from "../errors.js";

/** Fixed colours for colour indices 0..24; index 0 is the grey rim. */
export const PALETTE: readonly string[] = [
  "#9a9a9a", // 0 grey (rim)
  "#e6194b", // red
  "#3cb44b", // green
  "#ffe119", // yellow
  "#4363d8", // blue
  "#f58231", // orange
  "#911eb4", // purple
  "#42d4f4", // cyan
  "#f032e6", // magenta
  "#bfef45", // lime
  "#fabed4", // pink
  "#469990", // teal
  "#dcbeff", // lavender
  "#9a6324", // brown
  "#0000ff", // pure blue (was beige, which looked like an empty cell)
  "#800000", // maroon
  "#aaffc3", // mint
  "#808000", // olive
  "#ffd8b1", // apricot
  "#000075", // navy
  "#000000", // black
  "#00ff99", // spring green (was white, which looked like an empty cell)
  "#b8860b", // dark goldenrod
  "#7b68ee", // slate blue
  "#2f4f4f", // dark slate
];

const GOLDEN_ANGLE = 137.50776405003785;

/** The fill colour of colour index `k` as `#rrggbb`; deterministic for every non-negative integer. */
export function colourHex(k: number): string {
  if (!Number.isInteger(k) || k < 0) throw new InvalidOptionError("colour", `${k} is not a colour index`);
  if (k < PALETTE.length) return PALETTE[k];
  const hue = (k * GOLDEN_ANGLE) % 360;
  const light = k % 2 === 0 ? 0.45 : 0.65;
  const sat = k % 3 === 0 ? 0.55 : 0.75;
  return hslHex(hue, sat, light);
}

function hslHex(h: number, s: number, l: number): string {
  const a = s * Math.min(l, 1 - l);
  const f = (n: number): string => {
    const k = (n + h / 30) % 12;
    const v = l - a * Math.max(-1, Math.min(k - 3, 9 - k, 1));
    return Math.round(v * 255).toString(16).padStart(2, "0");
  };
  return `#${f(0)}${f(8)}${f(4)}`;
}

/** [r, g, b] of a `#rrggbb` colour. */
export function hexRgb(hex: string): [number, number, number] {
  const n = parseInt(hex.slice(1), 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
}

/** True when black text reads better than white on `hex`. */
export function isLight(hex: string): boolean {
  const [r, g, b] = hexRgb(hex);
  return 0.299 * r + 0.587 * g + 0.114 * b > 140;
}

/** Largest colour that has a letter label (a..z, then A..Z). */
export const MAX_LETTER_COLOUR = 51;

/**
 * The letter of colour `k`: `chr(97 + k)` for 0..25 (the e2.bucas.name default motifs order:
 * a = grey), then A..Z for 26..51.
 */
export function colourLetter(k: number): string {
  if (!Number.isInteger(k) || k < 0 || k > MAX_LETTER_COLOUR) {
    throw new InvalidOptionError("labels", `colour ${k} has no letter (letters cover colours 0..${MAX_LETTER_COLOUR})`);
  }
  return k < 26 ? String.fromCharCode(97 + k) : String.fromCharCode(65 + k - 26);
}
