/**
 * Streaming parser of a solver's stdout in the SAT competition format: `s` status lines, `v` model lines
 * (literals, terminated by 0) and `c` comment lines, from which the statistics of kissat and cadical are read.
 * Works on raw bytes chunk by chunk: `v` lines are decoded straight into the model array, and only the last
 * few lines are kept as text (for error messages), so a 100k-variable model never becomes one big string.
 */

/** The word of an `s` line. */
export type StatusWord = "SATISFIABLE" | "UNSATISFIABLE" | "UNKNOWN";

/** Statistics read from `c` lines (kissat and cadical spellings). */
export interface ParsedStats {
  conflicts?: number;
  decisions?: number;
  propagations?: number;
  /** kissat `process-time`, cadical `total process time since initialization`, in seconds. */
  solverSeconds?: number;
  /** kissat `maximum-resident-set-size` (bytes), cadical `maximum resident set size of process` (MiB). */
  maxRssBytes?: number;
}

const TAIL_LINES = 20;
const TAIL_LINE_CHARS = 300;
/** A single line longer than this is cut (a one-line model of 1M variables is ~8 MB). */
const MAX_LINE_BYTES = 64 << 20;
/** Comment lines longer than this are not statistics. */
const MAX_STATS_LINE = 200;

const NL = 10;
const CR = 13;
const SPACE = 32;
const TAB = 9;
const MINUS = 45;
const ZERO = 48;
const NINE = 57;
const CHAR_C = 99;
const CHAR_S = 115;
const CHAR_V = 118;
/** Clamp for absurd literals, so the digit loop never loses integer precision. */
const LITERAL_CLAMP = 2 ** 52;

const COUNTER = /^c (conflicts|decisions|propagations):\s+(\d+)(?:\s|$)/;
const KISSAT_TIME = /^c process-time:.*?(\d+(?:\.\d+)?) seconds/;
const KISSAT_RSS = /^c maximum-resident-set-size:\s+(\d+) bytes/;
const CADICAL_TIME = /^c total process time since initialization:\s+(\d+(?:\.\d+)?)\s+seconds/;
const CADICAL_RSS = /^c maximum resident set size of process:\s+(\d+(?:\.\d+)?)\s+MB/;
const SECTION = /^c -{3,4} \[ (statistics|resources) \]/;

/** Parses one run's stdout; feed it with push() and finish with end(). */
export class SolverOutputParser {
  /** The status of the (first) `s` line, or null when none was seen. */
  status: StatusWord | null = null;
  /** The first problem found in `s` / `v` lines (garbage), or null. */
  problem: string | null = null;
  /** True once a `v` line was seen. */
  sawModelLines = false;
  /** True once the model's terminating 0 was seen. */
  modelTerminated = false;
  readonly stats: ParsedStats = {};

  /** Per variable: 0 unset, 1 true, 2 false. Allocated at the first literal. */
  private values: Uint8Array | null = null;
  private pendingParts: Buffer[] = [];
  private pendingBytes = 0;
  private lineNo = 0;
  private readonly tailRing: string[] = [];
  private tailNext = 0;
  private sections = 0;

  constructor(private readonly numVars: number) {}

  /** Consumes a chunk of stdout. */
  push(chunk: Buffer): void {
    let start = 0;
    let nl = chunk.indexOf(NL, start);
    if (nl >= 0 && this.pendingBytes > 0) {
      this.pendingParts.push(chunk.subarray(0, nl));
      const line = Buffer.concat(this.pendingParts);
      this.pendingParts = [];
      this.pendingBytes = 0;
      this.line(line, 0, line.length);
      start = nl + 1;
      nl = chunk.indexOf(NL, start);
    }
    while (nl >= 0) {
      this.line(chunk, start, nl);
      start = nl + 1;
      nl = chunk.indexOf(NL, start);
    }
    if (start < chunk.length) {
      if (this.pendingBytes + chunk.length - start > MAX_LINE_BYTES) {
        this.fail(`line ${this.lineNo + 1} is longer than ${MAX_LINE_BYTES} bytes`);
        return;
      }
      this.pendingParts.push(chunk.subarray(start));
      this.pendingBytes += chunk.length - start;
    }
  }

  /** Consumes a last line without a newline, if any. */
  end(): void {
    if (this.pendingBytes > 0) {
      const line = Buffer.concat(this.pendingParts);
      this.pendingParts = [];
      this.pendingBytes = 0;
      this.line(line, 0, line.length);
    }
  }

  /**
   * The model as model[v] = 1 (true) or 0 (false or not listed, as with kissat `--partial`), length numVars + 1.
   * Reuses the parse buffer: call once, after end().
   */
  takeModel(): Uint8Array {
    const values = this.values ?? new Uint8Array(this.numVars + 1);
    this.values = null;
    for (let v = 1; v < values.length; v++) values[v] = values[v] === 1 ? 1 : 0;
    return values;
  }

  /** The last lines of stdout, for error messages. */
  tail(): string {
    const n = this.tailRing.length;
    const out: string[] = [];
    for (let i = 0; i < n; i++) out.push(this.tailRing[(this.tailNext + i) % n]);
    return out.join("\n");
  }

  private fail(problem: string): void {
    if (this.problem === null) this.problem = problem;
  }

  private remember(buf: Buffer, start: number, end: number): string {
    const text = buf.toString("latin1", start, Math.min(end, start + TAIL_LINE_CHARS));
    if (this.tailRing.length < TAIL_LINES) this.tailRing.push(text);
    else {
      this.tailRing[this.tailNext] = text;
      this.tailNext = (this.tailNext + 1) % TAIL_LINES;
    }
    return text;
  }

  private line(buf: Buffer, start: number, end: number): void {
    this.lineNo++;
    if (end > start && buf[end - 1] === CR) end--;
    if (end === start) return;
    const text = this.remember(buf, start, end);
    const first = buf[start];
    if (first === CHAR_V) this.valueLine(buf, start + 1, end, text);
    else if (first === CHAR_S) this.statusLine(text);
    else if (first === CHAR_C && end - start <= MAX_STATS_LINE) this.commentLine(text);
  }

  private statusLine(text: string): void {
    const word = text.slice(1).trim();
    if (text.length > 1 && text[1] !== " " && text[1] !== "\t") {
      this.fail(`line ${this.lineNo}: not an s line: ${JSON.stringify(text)}`);
    } else if (word !== "SATISFIABLE" && word !== "UNSATISFIABLE" && word !== "UNKNOWN") {
      this.fail(`line ${this.lineNo}: unknown status ${JSON.stringify(text)}`);
    } else if (this.status === null) {
      this.status = word;
    } else if (this.status !== word) {
      this.fail(`line ${this.lineNo}: a second s line (${word}) contradicts the first (${this.status})`);
    }
  }

  private valueLine(buf: Buffer, from: number, to: number, text: string): void {
    this.sawModelLines = true;
    if (this.problem !== null) return;
    if (from < to && buf[from] !== SPACE && buf[from] !== TAB) {
      this.fail(`line ${this.lineNo}: unparsable v line ${JSON.stringify(text)}`);
      return;
    }
    const numVars = this.numVars;
    let i = from;
    while (i < to) {
      let c = buf[i];
      if (c === SPACE || c === TAB) {
        i++;
        continue;
      }
      let negative = false;
      if (c === MINUS) {
        negative = true;
        i++;
      }
      let n = 0;
      const digitsFrom = i;
      while (i < to) {
        c = buf[i];
        if (c < ZERO || c > NINE) break;
        n = Math.min(n * 10 + (c - ZERO), LITERAL_CLAMP);
        i++;
      }
      if (i === digitsFrom || (i < to && buf[i] !== SPACE && buf[i] !== TAB)) {
        this.fail(`line ${this.lineNo}: unparsable v line ${JSON.stringify(text)}`);
        return;
      }
      if (this.modelTerminated) {
        this.fail(`line ${this.lineNo}: model literal after the terminating 0`);
        return;
      }
      if (n === 0) {
        this.modelTerminated = true;
        continue;
      }
      if (n > numVars) {
        const literal = buf.toString("latin1", digitsFrom - (negative ? 1 : 0), i);
        this.fail(`line ${this.lineNo}: model literal ${literal} out of range (the formula has ${numVars} variables)`);
        return;
      }
      const values = (this.values ??= new Uint8Array(numVars + 1));
      const want = negative ? 2 : 1;
      const have = values[n];
      if (have !== 0 && have !== want) {
        this.fail(`line ${this.lineNo}: model sets variable ${n} both true and false`);
        return;
      }
      values[n] = want;
    }
  }

  private commentLine(text: string): void {
    const stats = this.stats;
    let m: RegExpExecArray | null;
    if ((m = COUNTER.exec(text)) !== null) {
      stats[m[1] as "conflicts" | "decisions" | "propagations"] = Number(m[2]);
    } else if ((m = KISSAT_TIME.exec(text)) !== null || (m = CADICAL_TIME.exec(text)) !== null) {
      stats.solverSeconds = Number(m[1]);
    } else if ((m = KISSAT_RSS.exec(text)) !== null) {
      stats.maxRssBytes = Number(m[1]);
    } else if ((m = CADICAL_RSS.exec(text)) !== null) {
      stats.maxRssBytes = Math.round(Number(m[1]) * 1024 * 1024);
    } else if (SECTION.test(text)) {
      // cadical leaves out counters that are zero; once its statistics and resources are complete, absent is 0.
      if (++this.sections === 2) {
        stats.conflicts ??= 0;
        stats.decisions ??= 0;
        stats.propagations ??= 0;
      }
    }
  }
}
