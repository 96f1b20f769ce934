/*
 * Score mode: complete boards with as few mismatched inner edges as possible, the way Eternity II record searches
 * work. A depth-first backtracker over the free cells in a static scan order that may place a piece whose known
 * sides do not all match ("breaks"), but only late in the order: position i may have used at most allow[i] breaks,
 * a ramp from 0 at position `from` up to the budget B at the last position, B * f^P at the fraction f of the way
 * (P = 1: a straight ramp; P > 1 keeps the breaks for the last rows). Exact candidates (a bucket keyed by up to
 * two known colours) are tried first; at a position where breaks are allowed, those that mismatch on one of the two
 * keyed sides follow (the bucket of the other side's colour: precomputed one-colour tables, not a scan of every
 * orientation), each costing its mismatches. A placement that mismatches on both keyed sides is not tried
 * (`--score-any` tries them, from a scan of the rim list: 2.5 times slower per placement and worse boards). A complete board with b breaks scores (inner edges - b); the budget then
 * drops to b - 1 (branch and bound), and Luby restarts reshuffle the candidate order so one subtree never holds the
 * search. The rim is never broken: grey stays exactly on the rim.
 *
 * With --bound-file F, a bound another search found (a cluster's shared bound: a number of breaks in F, read at the
 * start and twice a second) narrows the search as a board of its own would, without a restart; with --restart-skip N
 * the Luby schedule goes on where N placements of it ended (a search continued under another seed).
 * With --lns MS, after MS of this search (and a board) lns.c improves the best board for the rest of the time.
 * The improving boards are printed as they are found: `c best score=S max=M placed=P breaks=B nodes=N seconds=T`,
 * then a `b` line of CELL PIECE ROT triples (every cell). The last one is the answer; core/verify.ts re-scores it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <math.h>
#include "score.h"

#define BOUND_READ_S 0.5

double score_since(const struct timespec *t0) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) * 1e-9;
}

static uint64_t rnd(uint64_t *s) { /* splitmix64 */
  uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}


void score_ramp(sctx_t *x) {
  for (int i = 0; i < x->n; i++) {
    if (i < x->from || x->budget <= 0) { x->allow[i] = 0; continue; }
    double f = (double)(i - x->from + 1) / (double)(x->n - x->from);
    long a = (long)ceil(x->budget * pow(f, x->o->score_ramp) - 1e-9);
    x->allow[i] = (int)(a > x->budget ? x->budget : a);
  }
}

/* --bound-file: a bound below the budget (another search's board, told by the caller) narrows the search at once,
 * as a board of its own would (the ramp is rebuilt; placements past it are undone as the search backs up). */
void score_read_bound(sctx_t *x) {
  double now = score_since(&x->t0);
  if (now - x->bound_read_at < BOUND_READ_S) return;
  x->bound_read_at = now;
  FILE *f = fopen(x->o->bound_file, "r");
  if (!f) return;
  int b;
  if (fscanf(f, "%d", &b) == 1 && b >= 0 && b < x->budget) {
    x->budget = b;
    score_ramp(x);
  }
  fclose(f);
}

static void shuffle(sctx_t *x, ocand_t *a, int len) {
  if (!x->rng) return;
  for (int i = len - 1; i > 0; i--) {
    int j = (int)(rnd(&x->rng) % (uint64_t)(i + 1));
    ocand_t t = a[i]; a[i] = a[j]; a[j] = t;
  }
}

/* Buckets for (rim, keyed): a counting sort of the rim list by the keyed sides' colours (stable: keeps the shuffle). */
static void build_buckets(sctx_t *x, int rim, int keyed) {
  const puzzle_t *p = x->p;
  int K = p->ncolours, sides[2], ns = 0;
  for (int d = 0; d < 4 && ns < 2; d++) if (keyed >> d & 1) sides[ns++] = d;
  int nkeys = ns == 0 ? 1 : ns == 1 ? K : K * K;
  int *start = calloc((size_t)nkeys + 2, sizeof(int));
  int len = x->rim_len[rim];
  ocand_t *src = x->rim_list[rim], *out = malloc(sizeof(ocand_t) * (size_t)(len + 1));
  for (int i = 0; i < len; i++) {
    int k = ns == 0 ? 0 : ns == 1 ? src[i].c[sides[0]] : src[i].c[sides[0]] + K * src[i].c[sides[1]];
    start[k + 1]++;
  }
  for (int k = 0; k < nkeys; k++) start[k + 1] += start[k];
  start[nkeys + 1] = start[nkeys];
  int *fill = malloc(sizeof(int) * (size_t)(nkeys + 1));
  memcpy(fill, start, sizeof(int) * (size_t)(nkeys + 1));
  for (int i = 0; i < len; i++) {
    int k = ns == 0 ? 0 : ns == 1 ? src[i].c[sides[0]] : src[i].c[sides[0]] + K * src[i].c[sides[1]];
    out[fill[k]++] = src[i];
  }
  free(fill);
  free(x->bstart[rim][keyed]); free(x->blist[rim][keyed]);
  x->bstart[rim][keyed] = start;
  x->blist[rim][keyed] = out;
}

/* Each restart shuffles the rim lists as the restart before left them. */
static void shuffle_rims(sctx_t *x) {
  for (int r = 0; r < 16; r++) if (x->rim_list[r]) shuffle(x, x->rim_list[r], x->rim_len[r]);
}

static void build_lists(sctx_t *x) {
  bool done[16][16];
  memset(done, 0, sizeof done);
  shuffle_rims(x);
  for (int i = 0; i < x->n; i++) {
    int r = x->rim[i], k = x->kmask[i];
    if (!done[r][k]) { build_buckets(x, r, k); done[r][k] = true; }
    if (x->nkey[i] != 2 || !x->one_off) continue;
    for (int j = 0; j < 2; j++) {
      int k1 = 1 << x->kd[i * 4 + j];
      if (!done[r][k1]) { build_buckets(x, r, k1); done[r][k1] = true; }
    }
  }
}

static void setup_score(sctx_t *x, const puzzle_t *p, const options_t *o) {
  memset(x, 0, sizeof *x);
  x->p = p; x->o = o;
  int cells = p->cells;
  int *all = malloc(sizeof(int) * (size_t)cells), *rank = malloc(sizeof(int) * (size_t)cells);
  engine_make_order(p, o->order, all);
  x->cell = malloc(sizeof(int) * (size_t)cells);
  for (int i = 0; i < cells; i++) rank[i] = -1;
  for (int i = 0; i < cells; i++) if (p->fixed_piece[all[i]] < 0) { rank[all[i]] = x->n; x->cell[x->n++] = all[i]; }
  int n = x->n + 1;
  x->nkn = calloc((size_t)n, sizeof(int));
  x->kd = calloc((size_t)n * 4, sizeof(int));
  x->kidx = calloc((size_t)n * 4, sizeof(int));
  x->nkey = calloc((size_t)n, sizeof(int));
  x->rim = calloc((size_t)n, sizeof(int));
  x->kmask = calloc((size_t)n, sizeof(int));
  x->phase = calloc((size_t)n, sizeof(int));
  x->lo = calloc((size_t)n, sizeof(int));
  x->hi = calloc((size_t)n, sizeof(int));
  x->cost = calloc((size_t)n, sizeof(int));
  x->allow = calloc((size_t)n, sizeof(int));
  x->chosen = calloc((size_t)n, sizeof(ocand_t *));
  x->colour = calloc((size_t)cells * 4, 1);
  x->avail = calloc((size_t)p->nclasses, sizeof(int));
  x->free_pieces = puzzle_fixed_state(p, x->avail, x->colour);

  for (int i = 0; i < x->n; i++) {
    int cell = x->cell[i];
    x->rim[i] = cell_rim(p, cell);
    for (int d = 0; d < 4; d++) {
      int y = p->nb[cell * 4 + d];
      if (y < 0) continue;
      if (p->fixed_piece[y] < 0 && !(rank[y] >= 0 && rank[y] < i)) continue;
      int j = x->nkn[i]++;
      x->kd[i * 4 + j] = d;
      x->kidx[i * 4 + j] = y * 4 + (d ^ 2);
      if (j < 2) { x->nkey[i]++; x->kmask[i] |= 1 << d; }
    }
  }
  for (int rim = 0; rim < 16; rim++) {
    bool used = false;
    for (int i = 0; i < x->n && !used; i++) used = x->rim[i] == rim;
    if (!used) continue;
    ocand_t *l = malloc(sizeof(ocand_t) * 4 * (size_t)p->nclasses);
    int len = 0;
    for (int c = 0; c < p->nclasses; c++) {
      int q = p->class_rep[c];
      for (int rot = 0; rot < 4; rot++) {
        ocand_t e = { (uint16_t)c, (uint8_t)rot, { 0 } };
        if (distinct_fitting(p, q, rot, rim, e.c)) l[len++] = e;
      }
    }
    x->rim_list[rim] = l;
    x->rim_len[rim] = len;
  }
  x->inner_edges = p->rows * (p->cols - 1) + p->cols * (p->rows - 1);
  x->best_breaks = x->inner_edges + 1;
  x->budget = o->score_breaks >= 0 ? o->score_breaks : x->inner_edges;
  x->from = (int)(o->score_from * x->n);
  if (x->from > x->n) x->from = x->n;
  score_ramp(x);
  x->rng = o->seed;
  x->one_off = !o->score_any;
  free(all); free(rank);
  clock_gettime(CLOCK_MONOTONIC, &x->t0);
  x->bound_read_at = -BOUND_READ_S;
  if (o->bound_file) score_read_bound(x); /* a bound there already counts from the start */
}

void score_report(sctx_t *x, int breaks) {
  const puzzle_t *p = x->p;
  int *cursor = calloc((size_t)p->nclasses, sizeof(int));
  printf("c best score=%d max=%d placed=%d breaks=%d nodes=%llu seconds=%.3f\nb", x->inner_edges - breaks,
         x->inner_edges, p->cells, breaks, (unsigned long long)x->nodes, score_since(&x->t0));
  int *piece = x->best_piece, *rot = x->best_rot; /* kept: --lns starts from the best board */
  for (int cell = 0; cell < p->cells; cell++) { piece[cell] = p->fixed_piece[cell]; rot[cell] = p->fixed_rot[cell]; }
  for (int i = 0; i < x->n; i++) {
    const ocand_t *c = x->chosen[i];
    int q = x->free_pieces[c->cls][cursor[c->cls]++];
    piece[x->cell[i]] = q;
    rot[x->cell[i]] = (c->rot - p->piece_shift[q] + 4) & 3;
  }
  for (int cell = 0; cell < p->cells; cell++) printf(" %d %d %d", cell, piece[cell], rot[cell]);
  printf("\n");
  fflush(stdout);
  if (breaks == 0) {
    memcpy(x->board_piece, piece, sizeof(int) * (size_t)p->cells);
    memcpy(x->board_rot, rot, sizeof(int) * (size_t)p->cells);
  }
  free(cursor);
}

/* The shuffle seed of the restart after restart i (the first restart shuffles with --seed itself). */
static uint64_t restart_seed(uint64_t seed, uint64_t i) { return seed * 0x100000001B3ull + i; }

static uint64_t luby_s(uint64_t i) {
  for (;;) {
    uint64_t k = 1;
    while ((1ull << k) - 1 < i) k++;
    if ((1ull << k) - 1 == i) return 1ull << (k - 1);
    i -= (1ull << (k - 1)) - 1;
  }
}

void engine_score(const puzzle_t *p, const options_t *o, result_t *r) {
  sctx_t x;
  setup_score(&x, p, o);
  x.board_piece = r->board_piece_buf;
  x.board_rot = r->board_rot_buf;
  x.best_piece = malloc(sizeof(int) * (size_t)p->cells);
  x.best_rot = malloc(sizeof(int) * (size_t)p->cells);
  r->positions = x.n;
  int end;
  uint64_t seed = o->seed ? o->seed : 1, first = 1, skip = o->restart_skip;
  /* --restart-skip: the schedule goes on where an earlier search ended: the restart it was in gets what was left of
   * it, then the next ones. With the same seed the skipped restarts' shuffles are made again, so that the lists are
   * those of the search that stopped and --resume-from goes on exactly where it stopped. */
  while (o->restart_base && skip >= luby_s(first) * o->restart_base) skip -= luby_s(first++) * o->restart_base;
  for (uint64_t j = 1; j < first; j++) { /* the shuffles of the restarts skipped, so restart `first` has its lists */
    shuffle_rims(&x);
    x.rng = restart_seed(seed, j);
  }
  build_lists(&x);
  x.resume = o->resume_from;
  x.resume_len = o->resume_from ? o->resume_len : 0;
  x.resume_out = r->resume_buf;
  for (uint64_t i = first;; i++) {
    end = score_dfs(&x, o->restart_base ? luby_s(i) * o->restart_base - (i == first ? skip : 0) : 0);
    if (end == -3) { /* --lns: the rest of the time improves the best board (lns.c) */
      end = lns_run(p, o, x.best_piece, x.best_rot, &x.nodes, &x.t0, r);
      x.best_breaks = x.inner_edges - r->best_score;
    }
    if (end != -1) break;
    r->restarts++;
    x.rng = restart_seed(seed, i);
    build_lists(&x);
  }
  r->end = (end_kind)end;
  r->resume_len = x.resume_out_len;
  r->nodes = x.nodes;
  r->solutions = x.best_breaks == 0 ? 1 : 0;
  r->max_depth = x.n;
  r->seconds = score_since(&x.t0);
  r->best_score = x.best_breaks <= x.inner_edges ? x.inner_edges - x.best_breaks : -1;
  r->max_score = x.inner_edges;
  free(x.best_piece); free(x.best_rot);
  for (int a = 0; a < 16; a++) {
    free(x.rim_list[a]);
    for (int b = 0; b < 16; b++) { free(x.bstart[a][b]); free(x.blist[a][b]); }
  }
}
