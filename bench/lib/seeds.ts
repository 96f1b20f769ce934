/** Seed lists on a benchmark's command line: a range "2-9" or a list "1,3,5". */

export function seedsOf(text: string): number[] {
  const m = /^(\d+)-(\d+)$/.exec(text);
  if (m) return Array.from({ length: Number(m[2]) - Number(m[1]) + 1 }, (_, i) => Number(m[1]) + i);
  return text.split(",").map(Number);
}
