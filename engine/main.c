/*
 * cubist-engine: reads one problem on stdin, searches, prints the answer the way SAT solvers do.
 * Exit codes: 10 a solution was found, 20 the search space (or this process's part of it) is exhausted without
 * one, 0 unknown (a limit or a stop), 1 bad input, 2 usage. See docs/engine.md.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "engine.h"

static const char *usage =
  "usage: cubist-engine [options] < problem\n"
  "  --order row|col|short|spiral|border|mcf  scan order (default short: lines along the shorter side;\n"
  "                    mcf: most constrained first, the cell with the fewest candidates left, chosen per node)\n"
"  --mirror          mirror the scan order left to right: it starts from the top-right corner (another tree)\n"
  "  --alternate N     run the scan and its mirror in turns of N placements, on one core; the first to decide wins\n"
  "                    (not with --count, --part, --part-depth, --restart, --score)\n"
  "  --scans LIST      with --alternate: the scans taking turns instead, up to 8, each a corner piece (--corner) and\n"
  "                    m for the mirror, e.g. 0,0m,2,2m (default: the --corner's scan and its mirror)\n"
  "  --seed N          shuffle candidate order with this seed (0: piece order; default 0)\n"
  "  --loop bits|scan  the static orders' inner loop: candidates as bit sets (default) or a bucket scan\n"
  "  --restart N       restart with a new shuffle after Luby(i)*N nodes (0: never; default 0; ignored with --count, --part)\n"
  "  --symmetry        break the board's rotational symmetry: the first corner piece top-left (square), top-left or\n"
  "                    at the end of the first scan line (oblong); the caller promises no hints (not with --count)\n"
  "  --corner K        with --symmetry: pin the K-th corner piece without a twin (0-3, piece order; default 0, the\n"
  "                    first): each is another starting corner of the solution, another tree\n"
  "  --count           count every solution instead of stopping at the first\n"
  "  --limit N         with --count: stop after N solutions\n"
  "  --print           print every solution found (v lines)\n"
  "  --part K/N        search only part K of N (0-based) of the space; N processes cover it all\n"
  "  --part-depth D    the depth at which parts are dealt out (default: chosen by probing); with --part 0/1 (or no\n"
  "                    --part) the one process numbers the subtrees there, to say how far it got (c part-next)\n"
  "  --part-from S     skip the part's subtrees numbered below S (a search of the same part stopped there before)\n"
  "  --resume-from L   go on exactly where a search with the same options stopped (its c resume-from line, a list of\n"
  "                    candidate ranks per depth); with --part-from, from that part-next (not with --order mcf,\n"
  "                    --alternate, --restart, or --part K/N for N > 1); in score mode with the same seed and\n"
  "                    --restart-skip its placements (not with --lns)\n"
  "  --nodes N         stop after N placements\n"
  "  --time-ms N       stop after N milliseconds\n"
  "  --progress-ms N   print a progress line every N milliseconds\n"
  "  --estimate N      first print Knuth's estimate of the search tree's size from N random probes\n"
  "  --best            print the deepest partial board (c best + b lines) with progress lines and at the end\n"
  "  --score           score mode: complete boards with the fewest mismatched inner edges, printed as found\n"
  "  --breaks N        score mode: start from at most N mismatched edges (default: any)\n"
  "  --score-from PCT  score mode: mismatches allowed from PCT% of the scan order on (default 50)\n"
  "  --score-ramp N    score mode: the ramp's exponent in hundredths: B * f^(N/100) breaks at the fraction f of it\n"
  "                    (default 100: straight)\n"
  "  --score-any       score mode: a placement may mismatch on both sides it is keyed by (default: on one at most)\n"
  "  --bound-file F    score mode: F holds a break bound (a number), read twice a second; a bound below the search's\n"
  "                    own is taken at once, without a restart (a cluster's shared bound)\n"
  "  --restart-skip N  score mode: start the Luby restarts where N placements of them end (a search that goes on)\n"
  "  --lns MS          score mode: after MS milliseconds of branch and bound (and a first board), improve the best\n"
  "                    board by large neighbourhood search (windows re-filled exactly, scattered cells reassigned)\n";

/* A comma-separated list of ranks (--resume-from): each below 2^31, at most MAX_CELLS of them. NULL when malformed. */
static uint32_t *parse_ranks(const char *s, int *len) {
  uint32_t *out = malloc(sizeof(uint32_t) * MAX_CELLS);
  int n = 0;
  for (;;) {
    char *end;
    if (*s < '0' || *s > '9' || n == MAX_CELLS) break;
    errno = 0;
    unsigned long v = strtoul(s, &end, 10);
    if (errno == ERANGE || v >= (1ul << 31)) break;
    out[n++] = (uint32_t)v;
    if (*end == 0) { *len = n; return out; }
    if (*end != ',') break;
    s = end + 1;
  }
  free(out);
  return NULL;
}

static void on_signal(int sig) { (void)sig; engine_stop_requested = 1; }

static bool parse_u64(const char *s, uint64_t *out) {
  char *end;
  if (!s || !*s || *s == '-') return false;
  errno = 0;
  unsigned long long v = strtoull(s, &end, 10);
  if (*end || errno == ERANGE) return false; /* a number past 2^64 is an error, not the largest one */
  *out = v;
  return true;
}

/* --scans: "0,0m,2,2m" -> the corners and directions of the scans taking turns. */
static bool parse_scans(const char *s, options_t *o) {
  o->nscans = 0;
  while (*s) {
    if (o->nscans == ALT_MAX || *s < '0' || *s > '3') return false;
    o->scan_corner[o->nscans] = *s++ - '0';
    o->scan_mirror[o->nscans] = *s == 'm';
    if (*s == 'm') s++;
    o->nscans++;
    if (*s == ',') s++;
    else if (*s) return false;
  }
  return o->nscans > 0;
}

static char *read_all(FILE *f, size_t *len) {
  size_t cap = 1 << 16, n = 0;
  char *buf = malloc(cap);
  for (;;) {
    if (n + 1 >= cap) buf = realloc(buf, cap *= 2);
    size_t got = fread(buf + n, 1, cap - n - 1, f);
    if (got == 0) break;
    n += got;
  }
  buf[n] = 0;
  *len = n;
  return buf;
}

static const char *end_name(end_kind e) {
  switch (e) {
    case END_EXHAUSTED: return "exhausted";
    case END_SOLUTION_LIMIT: return "solution-limit";
    case END_NODE_LIMIT: return "node-limit";
    case END_TIME_LIMIT: return "time-limit";
    default: return "stopped";
  }
}

int main(int argc, char **argv) {
  options_t o = { .order = ORDER_SHORT, .part_k = 0, .part_n = 1, .part_depth = -1, .score_breaks = -1, .score_from = 0.5, .score_ramp = 1.0 };
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    uint64_t u;
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) { fputs(usage, stdout); return 0; }
    else if (!strcmp(a, "--symmetry")) o.symmetry = true;
    else if (!strcmp(a, "--mirror")) o.mirror = true;
    else if (!strcmp(a, "--count")) o.count = true;
    else if (!strcmp(a, "--print")) o.print_solutions = true;
    else if (!strcmp(a, "--best")) o.best = true;
    else if (!strcmp(a, "--score")) o.score = true;
    else if (!strcmp(a, "--score-any")) o.score_any = true;
    else if (!strcmp(a, "--order") && v) {
      i++;
      if (!strcmp(v, "row")) o.order = ORDER_ROW;
      else if (!strcmp(v, "col")) o.order = ORDER_COL;
      else if (!strcmp(v, "short")) o.order = ORDER_SHORT;
      else if (!strcmp(v, "spiral")) o.order = ORDER_SPIRAL;
      else if (!strcmp(v, "border")) o.order = ORDER_BORDER;
      else if (!strcmp(v, "mcf")) o.order = ORDER_MCF;
      else { fprintf(stderr, "cubist-engine: unknown order '%s'\n%s", v, usage); return 2; }
    } else if (!strcmp(a, "--loop") && v) {
      i++;
      if (!strcmp(v, "bits")) o.scan_loop = false;
      else if (!strcmp(v, "scan")) o.scan_loop = true;
      else { fprintf(stderr, "cubist-engine: unknown loop '%s'\n%s", v, usage); return 2; }
    } else if (!strcmp(a, "--scans") && v) {
      i++;
      if (!parse_scans(v, &o)) {
        fprintf(stderr, "cubist-engine: --scans wants 1 to %d items K or Km (K a corner 0-3), comma-separated, got '%s'\n", ALT_MAX, v);
        return 2;
      }
    } else if (!strcmp(a, "--bound-file") && v) {
      i++;
      o.bound_file = v;
    } else if (!strcmp(a, "--resume-from") && v) {
      i++;
      free((void *)o.resume_from);
      o.resume_from = parse_ranks(v, &o.resume_len);
      if (!o.resume_from) {
        fprintf(stderr, "cubist-engine: --resume-from wants comma-separated ranks (c resume-from), got '%.60s'\n", v);
        return 2;
      }
    } else if (!strcmp(a, "--part") && v) {
      i++;
      int k, n;
      char tail;
      if (sscanf(v, "%d/%d%c", &k, &n, &tail) != 2 || n < 1 || k < 0 || k >= n) {
        fprintf(stderr, "cubist-engine: --part wants K/N with 0 <= K < N, got '%s'\n", v);
        return 2;
      }
      o.part_k = k; o.part_n = n;
    } else if (v && parse_u64(v, &u) && (!strcmp(a, "--seed") || !strcmp(a, "--corner") || !strcmp(a, "--alternate") || !strcmp(a, "--restart") || !strcmp(a, "--limit") ||
               !strcmp(a, "--nodes") || !strcmp(a, "--time-ms") || !strcmp(a, "--progress-ms") || !strcmp(a, "--part-depth") || !strcmp(a, "--part-from") ||
               !strcmp(a, "--breaks") || !strcmp(a, "--score-from") || !strcmp(a, "--score-ramp") || !strcmp(a, "--estimate") || !strcmp(a, "--lns") ||
               !strcmp(a, "--restart-skip"))) {
      i++;
      if (!strcmp(a, "--seed")) o.seed = u;
      else if (!strcmp(a, "--alternate")) o.alternate = u;
      else if (!strcmp(a, "--corner")) {
        if (u > 3) { fprintf(stderr, "cubist-engine: --corner wants 0..3, got %llu\n", (unsigned long long)u); return 2; }
        o.corner = (int)u;
      }
      else if (!strcmp(a, "--restart")) o.restart_base = u;
      else if (!strcmp(a, "--restart-skip")) o.restart_skip = u;
      else if (!strcmp(a, "--limit")) o.solution_limit = u;
      else if (!strcmp(a, "--nodes")) o.node_limit = u;
      else if (!strcmp(a, "--time-ms")) o.time_limit_s = (double)u / 1000.0;
      else if (!strcmp(a, "--progress-ms")) o.progress_s = (double)u / 1000.0;
      else if (!strcmp(a, "--part-from")) o.part_from = u;
      else if (!strcmp(a, "--lns")) { o.lns = true; o.lns_after_s = (double)u / 1000.0; }
      else if (!strcmp(a, "--estimate")) o.estimate_probes = u > 1000000 ? 1000000 : (int)u;
      else if (!strcmp(a, "--score-ramp")) {
        if (u < 10 || u > 1000) { fprintf(stderr, "cubist-engine: --score-ramp wants 10..1000 (hundredths of the exponent), got %llu\n", (unsigned long long)u); return 2; }
        o.score_ramp = (double)u / 100.0;
      }
      else if (!strcmp(a, "--breaks")) o.score_breaks = u > 1000000 ? 1000000 : (int)u;
      else if (!strcmp(a, "--score-from")) {
        if (u > 100) { fprintf(stderr, "cubist-engine: --score-from wants a percentage 0..100, got %llu\n", (unsigned long long)u); return 2; }
        o.score_from = (double)u / 100.0;
      }
      else o.part_depth = u > 1000000 ? 1000000 : (int)u;
    } else {
      fprintf(stderr, "cubist-engine: bad or incomplete option '%s'\n%s", a, usage);
      return 2;
    }
  }
  if (o.score && (o.count || o.part_n > 1 || o.part_depth >= 0 || o.part_from || o.symmetry || o.order == ORDER_MCF)) {
    fprintf(stderr, "cubist-engine: --score searches alone in a static order: not with --count, --part, --symmetry or --order mcf\n");
    return 2;
  }
  if (o.lns && !o.score) { fprintf(stderr, "cubist-engine: --lns improves score mode's boards: with --score\n"); return 2; }
  if ((o.bound_file || o.restart_skip) && !o.score) { fprintf(stderr, "cubist-engine: --bound-file and --restart-skip are for --score\n"); return 2; }
  if (o.part_from && o.part_n < 2 && o.part_depth < 0) {
    fprintf(stderr, "cubist-engine: --part-from numbers subtrees at a partition depth: with --part K/N or --part-depth D\n");
    return 2;
  }
  if (o.alternate && (o.count || o.part_n > 1 || o.part_depth >= 0 || o.restart_base || o.score)) {
    fprintf(stderr, "cubist-engine: --alternate runs complete scans (the scan and its mirror, or those of --scans) to the first answer: not with --count, --part, --part-depth, --restart or --score\n");
    return 2;
  }
  if (o.resume_from && !o.score && (o.order == ORDER_MCF || o.alternate || o.restart_base || o.part_n > 1)) {
    fprintf(stderr, "cubist-engine: --resume-from goes on with one static scan: not with --order mcf, --alternate, --restart or --part K/N for N > 1\n");
    return 2;
  }
  if (o.resume_from && o.lns) { fprintf(stderr, "cubist-engine: --resume-from goes on with branch and bound: not with --lns\n"); return 2; }
  if (o.nscans && !o.alternate) { fprintf(stderr, "cubist-engine: --scans lists the scans of --alternate: give --alternate N\n"); return 2; }
  if (o.symmetry && o.count) { fprintf(stderr, "cubist-engine: --symmetry would change a count; not with --count\n"); return 2; }

  size_t len;
  char *text = read_all(stdin, &len);
  const char *nul = memchr(text, 0, len);
  if (nul) { /* the text ends at a NUL: what follows would be ignored unread */
    int line = 1;
    for (const char *s = text; s < nul; s++) line += *s == '\n';
    fprintf(stderr, "cubist-engine: error: stdin line %d: a NUL byte\n", line);
    return 1;
  }
  puzzle_t p;
  const char *err = puzzle_read(&p, text);
  free(text);
  if (err) { fprintf(stderr, "cubist-engine: error: stdin %s\n", err); return 1; }
  puzzle_classes(&p);
  err = puzzle_check_fixed(&p);
  if (err) {
    printf("c %s\ns UNSATISFIABLE\nc nodes 0\nc solutions 0\nc end exhausted\n", err);
    return 20;
  }
  signal(SIGTERM, on_signal);
  signal(SIGINT, on_signal);

  result_t r;
  memset(&r, 0, sizeof r);
  r.board_piece_buf = malloc(sizeof(int) * (size_t)p.cells);
  r.board_rot_buf = malloc(sizeof(int) * (size_t)p.cells);
  r.resume_buf = malloc(sizeof(uint32_t) * ((size_t)p.cells + 1));
  if (o.score) engine_score(&p, &o, &r);
  else engine_solve(&p, &o, &r);

  bool sat = r.solutions > 0;
  /* score mode searched a space narrowed by its break budget: running out of it proves nothing */
  bool exhausted = r.end == END_EXHAUSTED && !o.score;
  printf("s %s\n", sat ? "SATISFIABLE" : exhausted ? "UNSATISFIABLE" : "UNKNOWN");
  if (sat && !o.print_solutions) {
    printf("v");
    for (int cell = 0; cell < p.cells; cell++) printf(" %d %d %d", cell, r.board_piece_buf[cell], r.board_rot_buf[cell]);
    printf("\n");
  }
  double rate = r.seconds > 0 ? (double)r.nodes / r.seconds : 0;
  printf("c nodes %llu\nc seconds %.6f\nc rate %.0f\nc solutions %llu\nc end %s\nc restarts %llu\nc depth %d of %d\n",
         (unsigned long long)r.nodes, r.seconds, rate, (unsigned long long)r.solutions, end_name(r.end),
         (unsigned long long)r.restarts, r.max_depth, r.positions);
  if (o.part_n > 1) printf("c part %d/%d depth %d\n", o.part_k, o.part_n, r.part_depth);
  if (r.has_part_next) printf("c part-next %llu depth %d\n", (unsigned long long)r.part_next, r.part_depth);
  if (r.resume_len > 0) {
    printf("c resume-from ");
    for (int d = 0; d < r.resume_len; d++) printf(d ? ",%u" : "%u", r.resume_buf[d]);
    printf("\n");
  }
  if (o.score) printf("c score %d of %d\n", r.best_score, r.max_score);
  fflush(stdout);
  return sat ? 10 : exhausted ? 20 : 0;
}
