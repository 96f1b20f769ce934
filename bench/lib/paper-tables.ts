/**
 * The solving times of Heule 2008 (seed 003), Tables 2 and 3: mean seconds over ten seeds on the paper's
 * 2008 machine, `Infinity` where the paper lists "> 3600". Table 2 is picosat (complete), Table 3 ubcsat
 * with ddfw (local search). Columns: the four encodings.
 */

/** The paper's columns, in its order. */
export const PAPER_COLUMNS = ["compact", "fbcolors", "explicit", "all"] as const;
export type PaperColumn = (typeof PAPER_COLUMNS)[number];

const T = Infinity;

/** Table 2 (picosat), seconds by instance and column. */
export const PAPER_TABLE2: Readonly<Record<string, Readonly<Record<PaperColumn, number>>>> = {
  "clue1": { compact: 0.11, fbcolors: 0.10, explicit: 0.10, all: 0.10 },
  "clue2": { compact: 506.44, fbcolors: 164.84, explicit: 2.75, all: 0.95 },
  "clue3": { compact: 0.22, fbcolors: 0.12, explicit: 0.10, all: 0.10 },
  "clue4": { compact: 1527.54, fbcolors: 269.77, explicit: 1.90, all: 0.54 },
  "em-7-3-6": { compact: T, fbcolors: T, explicit: 140.00, all: 34.91 },
  "em-7-4-8": { compact: T, fbcolors: T, explicit: 1132.54, all: 852.32 },
  "em-7-4-9": { compact: T, fbcolors: T, explicit: 45.94, all: 41.89 },
  "em-8-4-5": { compact: T, fbcolors: T, explicit: 209.35, all: 86.58 },
  "em-9-3-5": { compact: T, fbcolors: T, explicit: 501.81, all: 152.81 },
  "em-11-3-4": { compact: T, fbcolors: T, explicit: 163.48, all: 51.68 },
  "em-12-2-4": { compact: T, fbcolors: T, explicit: 249.66, all: 88.36 },
  "em-14-7-3": { compact: T, fbcolors: T, explicit: 80.24, all: 32.58 },
};

/** Table 3 (ubcsat, ddfw), seconds by instance and column. */
export const PAPER_TABLE3: Readonly<Record<string, Readonly<Record<PaperColumn, number>>>> = {
  "clue1": { compact: 0.04, fbcolors: 0.04, explicit: 0.02, all: 0.02 },
  "clue2": { compact: 1.78, fbcolors: 1.37, explicit: 0.19, all: 0.21 },
  "clue3": { compact: 0.06, fbcolors: 0.08, explicit: 0.03, all: 0.04 },
  "clue4": { compact: 1.38, fbcolors: 1.69, explicit: 0.33, all: 0.38 },
  "em-7-3-6": { compact: 60.73, fbcolors: 138.23, explicit: 670.65, all: 225.70 },
  "em-7-4-8": { compact: 2376.62, fbcolors: 1732.65, explicit: T, all: T },
  "em-7-4-9": { compact: 1690.02, fbcolors: 1284.47, explicit: T, all: T },
  "em-8-4-5": { compact: 155.62, fbcolors: 80.54, explicit: 381.91, all: 128.88 },
  "em-9-3-5": { compact: 1258.10, fbcolors: 177.36, explicit: 1928.79, all: 839.40 },
  "em-11-3-4": { compact: 82.73, fbcolors: 34.16, explicit: 2.65, all: 3.78 },
  "em-12-2-4": { compact: 154.99, fbcolors: 32.52, explicit: 2.32, all: 4.41 },
  "em-14-7-3": { compact: 145.72, fbcolors: 48.97, explicit: 11.02, all: 44.72 },
};

/** The smallest time of all eight columns for an instance, and where it is. */
export function paperBest(instance: string): { seconds: number; where: string } {
  let best = { seconds: Infinity, where: "-" };
  for (const [table, rows] of [["T2", PAPER_TABLE2], ["T3", PAPER_TABLE3]] as const) {
    const row = rows[instance];
    if (!row) continue;
    for (const col of PAPER_COLUMNS) if (row[col] < best.seconds) best = { seconds: row[col], where: `${table} ${col}` };
  }
  return best;
}
