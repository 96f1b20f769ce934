/** The summary of a repeated benchmark: one markdown row per measure, its median and every repeat's value. */

import { median } from "./summary.js";

export function repeatsTable(rows: ReadonlyArray<Record<string, number>>): string {
  const lines = [`| measure | median of ${rows.length} | all |`, "|---|---|---|"];
  for (const k of Object.keys(rows[0] ?? {})) lines.push(`| ${k} | ${median(rows.map((r) => r[k]))} | ${rows.map((r) => r[k]).join(", ")} |`);
  return lines.join("\n");
}
