/*
 * Score mode's improvement phase (`--score --lns MS`): large neighbourhood search around the best complete board,
 * the way published Eternity II local searches work. After MS milliseconds of score.c's branch and bound (once it
 * has a board), moves free a region and re-fill it with its own pieces, the rest of the board fixed, maximising the
 * matched edges; a fill as good as the current one is taken too (plateau moves, ties broken at random), so the board
 * drifts until a better one turns up. Two kinds of region, half the moves each:
 *   - a window: 2 to 4 by 2 to 4 cells, three times in four around a mismatched edge, re-filled exactly by a
 *     depth-first search with a bound (matched so far + the edges still to decide must beat the best fill found), at
 *     most WINDOW_NODES placements;
 *   - a scattered set: up to ASSIGN_MAX cells of one kind (inner, edge or corner) on one colour of the checkerboard,
 *     no two adjacent, so each cell's matches depend on fixed neighbours only: an assignment problem (piece -> cell,
 *     each at its best rotation) solved exactly by the Hungarian method.
 * Every KICK_MOVES moves (an iterated local search) the board goes back to the best one if it drifted below it, and
 * 1 to KICK_SWAPS swaps of two same-kind cells (one next to a mismatch) kick it. Hints never move and grey stays
 * exactly on the rim (a rotation is allowed only where it puts grey on the rim). Each board better than the best
 * so far is printed as score.c prints its boards (`c best ...` and a `b` line).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "engine.h"

#define WINDOW_NODES 200000
#define ASSIGN_MAX 128
#define WIN_SIDE 4
#define WIN_MAX (WIN_SIDE * WIN_SIDE)
#define CHECK_MOVES 16
#define KICK_MOVES 2000
#define KICK_SWAPS 4

struct lns {
  const puzzle_t *p;
  result_t *r;
  int *keep_p, *keep_r;     /* the best board */
  const options_t *o;
  int *piece, *rot;         /* the current board */
  uint8_t *col;             /* cell*4+d: its colours */
  int *kind;                /* cell -> grey sides it needs (0 inner, 1 edge, 2 corner), -1 fixed (a hint) */
  int score, best_score, inner_edges;
  uint64_t nodes, rng, node_cap;
  const struct timespec *t0;
  /* a window move */
  int win[WIN_MAX], pool[WIN_MAX], used[WIN_MAX], rem[WIN_MAX + 1], wn;
  int cur_p[WIN_MAX], cur_r[WIN_MAX], sol_p[WIN_MAX], sol_r[WIN_MAX], sol_val;
  int *inwin;               /* cell -> its index in the window, or -1 */
};
typedef struct lns lctx_t;

static uint64_t rnd(uint64_t *s) { /* splitmix64 */
  uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

static int pick(lctx_t *x, int n) { return (int)(rnd(&x->rng) % (uint64_t)n); }


/* Grey exactly on the rim: piece q at rotation r fits the cell's rim. */
static bool fits(const puzzle_t *p, int cell, int q, int r) {
  if (!p->bounded) return true;
  for (int d = 0; d < 4; d++) if ((shown_colour(p, q, r, d) == 0) != (p->nb[cell * 4 + d] < 0)) return false;
  return true;
}

static void put(lctx_t *x, int cell, int q, int r) {
  x->piece[cell] = q; x->rot[cell] = r;
  for (int d = 0; d < 4; d++) x->col[cell * 4 + d] = (uint8_t)shown_colour(x->p, q, r, d);
}

static int board_score(const lctx_t *x) {
  const puzzle_t *p = x->p;
  int s = 0;
  for (int cell = 0; cell < p->cells; cell++)
    for (int d = 1; d <= 2; d++) { /* east and south: each inner edge once */
      int y = p->nb[cell * 4 + d];
      if (y >= 0) s += x->col[cell * 4 + d] == x->col[y * 4 + (d ^ 2)];
    }
  return s;
}

static double elapsed(const struct timespec *t0) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) * 1e-9;
}

static void print_best(lctx_t *x) {
  result_t *r = x->r;
  const puzzle_t *p = x->p;
  x->best_score = x->score;
  printf("c best score=%d max=%d placed=%d breaks=%d nodes=%llu seconds=%.3f\nb", x->score, x->inner_edges, p->cells,
         x->inner_edges - x->score, (unsigned long long)x->nodes, elapsed(x->t0));
  for (int cell = 0; cell < p->cells; cell++) printf(" %d %d %d", cell, x->piece[cell], x->rot[cell]);
  printf("\n");
  fflush(stdout);
  if (x->score == x->inner_edges) {
    memcpy(r->board_piece_buf, x->piece, sizeof(int) * (size_t)p->cells);
    memcpy(r->board_rot_buf, x->rot, sizeof(int) * (size_t)p->cells);
  }
}

/* ---- window moves: exact re-fill by branch and bound ---- */

/* Matches of the window's k-th cell holding (q, r) against its neighbours outside the window or placed before it. */
static int window_gain(const lctx_t *x, int k, int q, int r) {
  const puzzle_t *p = x->p;
  int cell = x->win[k], g = 0;
  for (int d = 0; d < 4; d++) {
    int y = p->nb[cell * 4 + d];
    if (y < 0 || (x->inwin[y] >= 0 && x->inwin[y] > k)) continue;
    g += shown_colour(p, q, r, d) == x->col[y * 4 + (d ^ 2)];
  }
  return g;
}

static void window_dfs(lctx_t *x, int k, int val) {
  if (val + x->rem[k] <= x->sol_val || x->nodes >= x->node_cap) return;
  if (k == x->wn) {
    x->sol_val = val;
    memcpy(x->sol_p, x->cur_p, sizeof(int) * (size_t)x->wn);
    memcpy(x->sol_r, x->cur_r, sizeof(int) * (size_t)x->wn);
    return;
  }
  int cell = x->win[k], r0 = pick(x, 4);
  for (int j = 0; j < x->wn; j++) {
    if (x->used[j]) continue;
    int q = x->pool[j];
    for (int i = 0; i < 4; i++) {
      int r = (r0 + i) & 3;
      if (!fits(x->p, cell, q, r)) continue;
      x->nodes++;
      x->used[j] = 1;
      x->cur_p[k] = q; x->cur_r[k] = r;
      put(x, cell, q, r);
      window_dfs(x, k + 1, val + window_gain(x, k, q, r));
      x->used[j] = 0;
      if (val + x->rem[k] <= x->sol_val) return;
    }
  }
}

/* A random cell with a mismatched side (-1: none), found by probing from a random cell on. */
static int broken_cell(lctx_t *x) {
  const puzzle_t *p = x->p;
  int start = pick(x, p->cells);
  for (int i = 0; i < p->cells; i++) {
    int cell = (start + i) % p->cells;
    for (int d = 0; d < 4; d++) {
      int y = p->nb[cell * 4 + d];
      if (y >= 0 && x->col[cell * 4 + d] != x->col[y * 4 + (d ^ 2)]) return cell;
    }
  }
  return -1;
}

static void move_window(lctx_t *x) {
  const puzzle_t *p = x->p;
  int h = 2 + pick(x, WIN_SIDE - 1), w = 2 + pick(x, WIN_SIDE - 1);
  if (h > p->rows) h = p->rows;
  if (w > p->cols) w = p->cols;
  int r0 = pick(x, p->rows - h + 1), c0 = pick(x, p->cols - w + 1), at = pick(x, 4) ? broken_cell(x) : -1;
  if (at >= 0) { /* a window around a mismatched edge */
    r0 = at / p->cols - pick(x, h); c0 = at % p->cols - pick(x, w);
    if (r0 < 0) r0 = 0;
    if (c0 < 0) c0 = 0;
    if (r0 > p->rows - h) r0 = p->rows - h;
    if (c0 > p->cols - w) c0 = p->cols - w;
  }
  x->wn = 0;
  for (int r = r0; r < r0 + h; r++)
    for (int c = c0; c < c0 + w; c++) {
      int cell = r * p->cols + c;
      if (x->kind[cell] < 0) continue;
      x->inwin[cell] = x->wn;
      x->win[x->wn] = cell;
      x->pool[x->wn] = x->piece[cell];
      x->cur_p[x->wn] = x->piece[cell]; x->cur_r[x->wn] = x->rot[cell];
      x->wn++;
    }
  if (x->wn >= 2) {
    int before = 0, e[WIN_MAX];
    for (int k = 0; k < x->wn; k++) {
      e[k] = 0;
      for (int d = 0; d < 4; d++) {
        int y = p->nb[x->win[k] * 4 + d];
        if (y >= 0 && !(x->inwin[y] >= 0 && x->inwin[y] > k)) e[k]++;
      }
      before += window_gain(x, k, x->cur_p[k], x->cur_r[k]);
    }
    x->rem[x->wn] = 0;
    for (int k = x->wn - 1; k >= 0; k--) x->rem[k] = x->rem[k + 1] + e[k];
    for (int j = x->wn - 1; j > 0; j--) { int i = pick(x, j + 1), t = x->pool[i]; x->pool[i] = x->pool[j]; x->pool[j] = t; }
    memset(x->used, 0, sizeof x->used);
    int orig_p[WIN_MAX], orig_r[WIN_MAX];
    memcpy(orig_p, x->cur_p, sizeof orig_p); memcpy(orig_r, x->cur_r, sizeof orig_r);
    x->sol_val = before - 1; /* the current fill is in the space: a fill at least as good is found unless capped */
    uint64_t cap = x->node_cap;
    if (x->nodes + WINDOW_NODES < x->node_cap) x->node_cap = x->nodes + WINDOW_NODES;
    window_dfs(x, 0, 0);
    x->node_cap = cap;
    bool take = x->sol_val >= before;
    for (int k = 0; k < x->wn; k++) put(x, x->win[k], take ? x->sol_p[k] : orig_p[k], take ? x->sol_r[k] : orig_r[k]);
    if (take) x->score += x->sol_val - before;
  }
  for (int k = 0; k < x->wn; k++) x->inwin[x->win[k]] = -1;
}

/* ---- scattered moves: an assignment problem ---- */

/* Minimum-cost perfect assignment of an n x n matrix (row i -> column a[i]), the Hungarian method in O(n^3). */
static void hungarian(int n, const long long *cost, int *a) {
  long long u[ASSIGN_MAX + 1], v[ASSIGN_MAX + 1], minv[ASSIGN_MAX + 1];
  int pcol[ASSIGN_MAX + 1], way[ASSIGN_MAX + 1];
  bool usedc[ASSIGN_MAX + 1];
  const long long INF = (long long)1 << 60;
  for (int j = 0; j <= n; j++) { u[j] = v[j] = 0; pcol[j] = 0; way[j] = 0; }
  for (int i = 1; i <= n; i++) {
    pcol[0] = i;
    int j0 = 0;
    for (int j = 0; j <= n; j++) { minv[j] = INF; usedc[j] = false; }
    do {
      usedc[j0] = true;
      int i0 = pcol[j0], j1 = 0;
      long long delta = INF;
      for (int j = 1; j <= n; j++) {
        if (usedc[j]) continue;
        long long cur = cost[(i0 - 1) * n + (j - 1)] - u[i0] - v[j];
        if (cur < minv[j]) { minv[j] = cur; way[j] = j0; }
        if (minv[j] < delta) { delta = minv[j]; j1 = j; }
      }
      for (int j = 0; j <= n; j++) {
        if (usedc[j]) { u[pcol[j]] += delta; v[j] -= delta; } else minv[j] -= delta;
      }
      j0 = j1;
    } while (pcol[j0] != 0);
    do { int j1 = way[j0]; pcol[j0] = pcol[j1]; j0 = j1; } while (j0);
  }
  for (int j = 1; j <= n; j++) a[pcol[j] - 1] = j - 1;
}

/* Matches of (q, r) at a cell against all its neighbours (none of which is in the move). */
static int cell_gain(const lctx_t *x, int cell, int q, int r) {
  const puzzle_t *p = x->p;
  int g = 0;
  for (int d = 0; d < 4; d++) {
    int y = p->nb[cell * 4 + d];
    if (y >= 0) g += shown_colour(p, q, r, d) == x->col[y * 4 + (d ^ 2)];
  }
  return g;
}

static void move_assign(lctx_t *x) {
  const puzzle_t *p = x->p;
  int want = pick(x, 10) < 7 ? 0 : pick(x, 8) ? 1 : 2, parity = pick(x, 2);
  static int cells[MAX_CELLS];
  int n = 0;
  for (int cell = 0; cell < p->cells; cell++)
    if (x->kind[cell] == want && ((cell / p->cols + cell % p->cols) & 1) == parity) cells[n++] = cell;
  for (int j = n - 1; j > 0; j--) { int i = pick(x, j + 1), t = cells[i]; cells[i] = cells[j]; cells[j] = t; }
  int m = pick(x, 2) ? n : 4 + pick(x, ASSIGN_MAX - 3); /* half the time every cell of the kind and colour */
  if (m > n) m = n;
  if (m > ASSIGN_MAX) m = ASSIGN_MAX;
  if (m < 2) return;
  static long long cost[ASSIGN_MAX * ASSIGN_MAX];
  static signed char brot[ASSIGN_MAX * ASSIGN_MAX];
  int pieces[ASSIGN_MAX], a[ASSIGN_MAX], before = 0;
  const long long unit = 1 << 20, noise = unit / m; /* noise below one match in total: ties broken at random */
  for (int i = 0; i < m; i++) pieces[i] = x->piece[cells[i]];
  for (int i = 0; i < m; i++) {
    before += cell_gain(x, cells[i], pieces[i], x->rot[cells[i]]);
    for (int j = 0; j < m; j++) {
      int best = -1, br = 0, r0 = pick(x, 4);
      for (int k = 0; k < 4; k++) {
        int r = (r0 + k) & 3;
        if (!fits(p, cells[i], pieces[j], r)) continue;
        int g = cell_gain(x, cells[i], pieces[j], r);
        if (g > best) { best = g; br = r; }
      }
      brot[i * m + j] = (signed char)br;
      cost[i * m + j] = best < 0 ? unit * 1000 : (4 - best) * unit + (long long)(rnd(&x->rng) % (uint64_t)noise);
    }
  }
  x->nodes += (uint64_t)m * (uint64_t)m;
  hungarian(m, cost, a);
  int after = 0;
  for (int i = 0; i < m; i++) after += 4 - (int)(cost[i * m + a[i]] / unit);
  if (after < before) return; /* cannot happen (the current assignment is one): keep the board */
  for (int i = 0; i < m; i++) put(x, cells[i], pieces[a[i]], brot[i * m + a[i]]);
  x->score += after - before;
}

/* A kick: `k` swaps of two random cells of the same kind, near mismatches, each piece at its best rotation there. */
static void kick(lctx_t *x, int k) {
  const puzzle_t *p = x->p;
  for (int s = 0; s < k; s++) {
    int a = broken_cell(x), b = pick(x, p->cells);
    if (a < 0 || x->kind[a] < 0) a = pick(x, p->cells);
    if (x->kind[a] < 0 || x->kind[b] != x->kind[a] || a == b) continue;
    int qa = x->piece[a], qb = x->piece[b];
    for (int t = 0; t < 2; t++) {
      int cell = t ? b : a, q = t ? qa : qb, best = -1, br = 0;
      for (int r = 0; r < 4; r++) {
        if (!fits(p, cell, q, r)) continue;
        put(x, cell, q, r);
        int g = cell_gain(x, cell, q, r);
        if (g > best) { best = g; br = r; }
      }
      put(x, cell, q, br);
    }
  }
  x->score = board_score(x);
}

static void keep(lctx_t *x) {
  memcpy(x->keep_p, x->piece, sizeof(int) * (size_t)x->p->cells);
  memcpy(x->keep_r, x->rot, sizeof(int) * (size_t)x->p->cells);
}

static void setup(lctx_t *x, const puzzle_t *p, const options_t *o, const struct timespec *t0, result_t *r) {
  memset(x, 0, sizeof *x);
  x->p = p; x->o = o; x->t0 = t0; x->r = r;
  x->node_cap = o->node_limit ? o->node_limit : UINT64_MAX;
  x->rng = (o->seed ? o->seed : 1) * 0x2545F4914F6CDD1Dull;
  x->piece = malloc(sizeof(int) * (size_t)p->cells);
  x->rot = malloc(sizeof(int) * (size_t)p->cells);
  x->keep_p = malloc(sizeof(int) * (size_t)p->cells);
  x->keep_r = malloc(sizeof(int) * (size_t)p->cells);
  x->kind = malloc(sizeof(int) * (size_t)p->cells);
  x->inwin = malloc(sizeof(int) * (size_t)p->cells);
  x->col = malloc((size_t)p->cells * 4);
  for (int cell = 0; cell < p->cells; cell++) {
    int rim = cell_rim(p, cell), k = 0;
    for (int d = 0; d < 4; d++) k += p->bounded && (rim >> d & 1);
    x->kind[cell] = p->fixed_piece[cell] >= 0 ? -1 : k;
    x->inwin[cell] = -1;
  }
  x->inner_edges = p->rows * (p->cols - 1) + p->cols * (p->rows - 1);
}

int lns_run(const puzzle_t *p, const options_t *o, const int *piece, const int *rot, uint64_t *nodes,
            const struct timespec *t0, result_t *r) {
  lctx_t x;
  setup(&x, p, o, t0, r);
  x.nodes = *nodes;
  for (int cell = 0; cell < p->cells; cell++) put(&x, cell, piece[cell], rot[cell]);
  x.score = x.best_score = board_score(&x);
  keep(&x);
  int end = END_TIME_LIMIT;
  for (uint64_t m = 1;; m++) {
    if (x.score == x.inner_edges) { end = END_SOLUTION_LIMIT; break; }
    x.nodes++; /* a move counts, so that --nodes ends a search whose moves place nothing (one free cell) */
    if (pick(&x, 2)) move_window(&x); else move_assign(&x);
    if (x.score > x.best_score) { print_best(&x); keep(&x); }
    if (m % KICK_MOVES == 0) { /* iterated local search: back to the best board if below it, then a kick */
      if (x.score < x.best_score) {
        for (int cell = 0; cell < p->cells; cell++) put(&x, cell, x.keep_p[cell], x.keep_r[cell]);
        x.score = x.best_score;
      }
      kick(&x, 1 + pick(&x, KICK_SWAPS));
    }
    if (o->node_limit && x.nodes >= o->node_limit) { end = END_NODE_LIMIT; break; }
    if (m % CHECK_MOVES) continue;
    if (engine_stop_requested) { end = END_STOPPED; break; }
    if (o->time_limit_s > 0 && elapsed(t0) >= o->time_limit_s) { end = END_TIME_LIMIT; break; }
  }
  *nodes = x.nodes;
  r->best_score = x.best_score;
  free(x.piece); free(x.rot); free(x.keep_p); free(x.keep_r); free(x.kind); free(x.inwin); free(x.col);
  return end;
}
