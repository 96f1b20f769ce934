/*
 * The search: a depth-first backtracker over the free cells in a static scan order.
 *
 * Position i of the order knows before the search which of its sides are constrained: the rim (a table per rim
 * mask holds only orientations with grey exactly there), and neighbours that are fixed or come earlier in the
 * order. Up to three such neighbour colours form the bucket key; a fourth (a cell closed on all sides) is
 * compared per candidate. A node is one placement made. Restarts (Luby budgets) reshuffle the buckets; the budgets
 * grow without bound, so a restarting search still ends in a complete pass and its "exhausted" is a proof.
 *
 * Partitioning (`part_k` of `part_n`) lets n processes split one search without talking: each walks the shallow
 * levels in the same order and keeps only the subtrees at the partition depth whose running index is k mod n.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <time.h>
#include "engine.h"
#include "search.h"

volatile int engine_stop_requested = 0;

static const uint8_t ZERO = 0;

/* ---- setup ---- */

static void setup(ctx_t *x, const puzzle_t *p, const options_t *o) {
  memset(x, 0, sizeof *x);
  x->p = p; x->o = o;
  x->only_cls = -1;
  int cells = p->cells;
  int *all = malloc(sizeof(int) * (size_t)cells), *rank = malloc(sizeof(int) * (size_t)cells);
  engine_make_order(p, o->order, all);
  if (o->mirror) for (int i = 0; i < cells; i++) all[i] = all[i] / p->cols * p->cols + p->cols - 1 - all[i] % p->cols;
  x->cell = malloc(sizeof(int) * (size_t)cells);
  for (int i = 0; i < cells; i++) rank[i] = -1;
  for (int i = 0; i < cells; i++) if (p->fixed_piece[all[i]] < 0) { rank[all[i]] = x->n; x->cell[x->n++] = all[i]; }
  int n = x->n + 1;
  x->nk = calloc((size_t)n, sizeof(int));
  x->kidx = calloc((size_t)n * 3, sizeof(int));
  x->kmul = calloc((size_t)n * 3, sizeof(int));
  x->chk = malloc(sizeof(int) * (size_t)n);
  x->chk_idx = malloc(sizeof(int) * 4 * (size_t)n);
  x->chk_mask = calloc((size_t)n, sizeof(uint32_t));
  x->tab_id = calloc((size_t)n, sizeof(int));
  x->F = calloc((size_t)n, sizeof(frame_t));
  x->colour = calloc((size_t)cells * 4, 1);
  x->avail = calloc((size_t)p->nclasses, sizeof(int));
  x->excluded = malloc(sizeof(int) * 16);
  for (int i = 0; i < 16; i++) x->excluded[i] = -1;
  x->free_pieces = puzzle_fixed_state(p, x->avail, x->colour);

  int max_keyed = 3;
  for (long long k = (long long)p->ncolours * p->ncolours * p->ncolours; max_keyed > 0 && k > MAX_KEYS; k /= p->ncolours) max_keyed--;
  for (int i = 0; i < x->n; i++) {
    int cell = x->cell[i], rim = cell_rim(p, cell), keyed = 0, m = 1;
    x->chk[i] = -1;
    for (int d = 0; d < 4; d++) x->chk_idx[i * 4 + d] = -1;
    for (int d = 0; d < 4; d++) {
      int y = p->nb[cell * 4 + d];
      if (y < 0) continue;
      if (p->fixed_piece[y] < 0 && !(rank[y] >= 0 && rank[y] < i)) continue;
      int idx = y * 4 + (d ^ 2);
      if (x->nk[i] < max_keyed) {
        x->kidx[i * 3 + x->nk[i]] = idx;
        x->kmul[i * 3 + x->nk[i]] = m;
        x->nk[i]++;
        m *= p->ncolours;
        keyed |= 1 << d;
      } else {
        x->chk[i] = 1;
        x->chk_idx[i * 4 + d] = idx;
        x->chk_mask[i] |= 0xFFu << (8 * d);
      }
    }
    x->tab_id[i] = rim * 16 + keyed;
    frame_t *f = &x->F[i];
    for (int j = 0; j < 3; j++) f->key[j] = j < x->nk[i] ? &x->colour[x->kidx[i * 3 + j]] : &ZERO;
    f->mul1 = x->kmul[i * 3 + 1];
    f->mul2 = x->kmul[i * 3 + 2];
    f->mask = x->chk_mask[i];
    f->dst = &x->colour[cell * 4];
  }
  free(rank);

  x->force_depth = -1;
  if (o->symmetry && p->bounded && !o->count && p->rows >= 2 && p->cols >= 2) symmetry_setup(x, all);
  free(all);
  if (o->order == ORDER_MCF) mcf_setup(x);
  if (!x->dyn && !o->scan_loop) bits_setup(x);
  x->rng = o->seed;
  x->part_depth = -1;
  clock_gettime(CLOCK_MONOTONIC, &x->t0);
  x->next_progress = o->progress_s > 0 ? o->progress_s : 1e300;
}

/*
 * The fraction of this pass's tree already searched, judged from the top of the current path: at each depth d the
 * candidates of its bucket before the one on the path are done, each worth an equal share of its parent's share.
 * An estimate (subtrees differ in size and the bucket counts unavailable pieces too), only for progress lines.
 */
static double covered(ctx_t *x, int depth) {
  if (x->W) return bits_covered(x, depth);
  double share = 1, done = 0;
  for (int d = 0; d < depth; d++) {
    const frame_t *f = &x->F[d];
    int b = f->hi - f->first, before = f->lo - 1 - f->first;
    if (b <= 0) break;
    done += share * (double)before / b;
    share /= b;
  }
  return done;
}

/* ---- the depth-first search ---- */

void search_unwind(ctx_t *x, int depth) {
  if (x->W && x->mode != BITS_COPIES) return; /* the bit-set loop with one copy per class keeps no counts */
  while (depth > 0) { depth--; x->avail[search_chosen_at(x, depth)->cls]++; }
}

/* At a check point: the end_kind the search must stop with (the node limit or budget, a stop request, the time
 * limit), or -1 to go on; prints a progress line when one is due. */
int search_check(ctx_t *x, uint64_t nodes, uint64_t stop_at, int depth) {
  const options_t *o = x->o;
  x->stop_depth = depth;
  if (nodes >= stop_at) return o->node_limit && nodes >= o->node_limit ? END_NODE_LIMIT : END_BUDGET;
  if (engine_stop_requested) return END_STOPPED;
  if (x->alt && alt_check(x, nodes) >= 0) return END_STOPPED;
  int end = -1;
  double t = search_elapsed(x);
  if (o->time_limit_s > 0 && t >= o->time_limit_s) end = END_TIME_LIMIT;
  if (t >= x->next_progress) {
    double share = covered(x, depth);
    int deepest = x->max_depth;
    uint64_t all = x->alt ? alt_progress(x, nodes, &share, &deepest) : nodes;
    printf("c progress nodes=%llu seconds=%.3f depth=%d of=%d covered=%.6g\n", (unsigned long long)all, t, deepest, x->n, share);
    search_print_best(x);
    fflush(stdout);
    x->next_progress = t + o->progress_s;
  }
  return end;
}

/* Sets up depth d: its bucket (lo, hi, first) and the compared sides' colours (need). */
static inline void enter_static(ctx_t *x, frame_t *f) {
  if (f - x->F == x->force_depth) { /* the symmetry's forced corner takes c while c is free */
    const table_t *t = x->avail[x->force_cls] > 0 ? &x->ftab : &x->tabs[x->tab_id[x->force_depth]];
    f->list = t->list;
    f->start = t->start;
  }
  int key = *f->key[0] + *f->key[1] * f->mul1 + *f->key[2] * f->mul2;
  f->first = f->lo = f->start[key];
  f->hi = f->start[key + 1];
  if (f->mask) {
    uint32_t need = 0;
    for (int s = 0; s < 4; s++) {
      int ci = x->chk_idx[(f - x->F) * 4 + s];
      if (ci >= 0) need |= (uint32_t)x->colour[ci] << (8 * s);
    }
    f->need = need;
  }
}

/*
 * Returns an end_kind, or END_BUDGET when `budget` nodes (0: none) were spent. `leaf` < n counts leaves only.
 * Written once and specialised by `dyn` (a constant at each call), so the static orders' loop carries no test for
 * the dynamic one. The node count lives in a local between checks.
 */
static inline void enter(ctx_t *x, int d) {
  if (x->dyn) mcf_enter(x, d);
  else enter_static(x, &x->F[d]);
}

static inline __attribute__((always_inline)) int dfs_impl(ctx_t *x, int leaf, uint64_t budget, uint64_t *leaves, const bool dyn) {
  const options_t *o = x->o;
  int n = x->n;
  int *restrict avail = x->avail;
  frame_t *const F = x->F;
  uint64_t stop_at = budget ? x->nodes + budget : UINT64_MAX;
  if (o->node_limit && o->node_limit < stop_at) stop_at = o->node_limit;
  uint64_t next_check = x->nodes + SEARCH_CHECK_EVERY;
  uint64_t nodes = x->nodes, check_at = next_check < stop_at ? next_check : stop_at;
  if (dyn) mcf_reset(x);
  if (leaf == 0) {
    if (n == 0) { x->solutions++; search_on_solution(x); return o->count && !(o->solution_limit && x->solutions >= o->solution_limit) ? END_EXHAUSTED : END_SOLUTION_LIMIT; }
    (*leaves)++;
    return END_EXHAUSTED;
  }
  frame_t *const Fleaf = F + leaf, *const Fpart = x->part_depth >= 0 ? F + x->part_depth : NULL;
  frame_t *Fmax = F + x->max_depth;
  frame_t *f = F;
  if (dyn) mcf_enter(x, 0);
  else enter_static(x, f);
  /* --resume-from (static orders): down the stopped search's path again, uncounted, before the loop */
  for (int d = 0; !dyn && d < x->resume_len; d++) {
    const int i = (int64_t)f->first + x->resume[d] < f->hi ? f->first + (int)x->resume[d] : f->hi;
    f->lo = i; /* the candidates ranked below the path's were searched before */
    /* the last depth goes on from its rank; a path the search cannot take (not this problem's) ends the walk there */
    if (d == x->resume_len - 1 || i >= f->hi || avail[f->list[i].cls] == 0 || f + 1 >= Fleaf) break;
    const cand_t *c = &f->list[i];
    if (f->mask) {
      uint32_t w;
      memcpy(&w, c->c, 4);
      if ((w & f->mask) != f->need) break;
    }
    if (f == Fpart) x->part_counter++;
    f->lo = i + 1;
    avail[c->cls]--;
    f->chosen = c;
    memcpy(f->dst, c->c, 4);
    f++;
    if (f > Fmax) { Fmax = f; x->max_depth = (int)(f - F); }
    enter_static(x, f);
  }
  x->resume_len = 0;
  for (;;) {
    const cand_t *L = f->list;
    int i = f->lo, e = f->hi;
    uint32_t mask = f->mask;
    if (mask == 0) {
      while (i < e && avail[L[i].cls] == 0) i++;
    } else {
      uint32_t need = f->need, w;
      while (i < e && (avail[L[i].cls] == 0 || (memcpy(&w, L[i].c, 4), (w & mask) != need))) i++;
    }
    if (i >= e) {
      if (dyn) mcf_leave(x, (int)(f - F));
      if (f == F) { x->nodes = nodes; return END_EXHAUSTED; }
      f--;
      avail[f->chosen->cls]++;
      continue;
    }
    f->lo = i + 1;
    if (f == Fpart) { /* ours: numbered k mod n, and not below from (searched before) */
      uint64_t num = x->part_counter++;
      if (num % (uint64_t)o->part_n != (uint64_t)o->part_k || num < o->part_from) continue;
    }
    const cand_t *c = &L[i];
    nodes++;
    avail[c->cls]--;
    f->chosen = c;
    if (dyn) memcpy(&x->colour[x->cell[f - F] * 4], c->c, 4);
    else memcpy(f->dst, c->c, 4);
    f++;
    if (f > Fmax) {
      Fmax = f;
      int depth = (int)(f - F);
      x->max_depth = depth;
      if (x->best) for (int j = 0; j < depth; j++) { x->best[j] = *F[j].chosen; x->best_cell[j] = x->cell[j]; }
    }
    if (f == Fleaf) {
      f--;
      if (leaf == n) {
        x->solutions++;
        x->nodes = nodes;
        search_on_solution(x);
        if (!o->count || (o->solution_limit && x->solutions >= o->solution_limit)) {
          search_unwind(x, (int)(f - F) + 1);
          return END_SOLUTION_LIMIT;
        }
      } else {
        (*leaves)++;
      }
      avail[c->cls]++;
    } else if (dyn) {
      mcf_enter(x, (int)(f - F));
    } else {
      enter_static(x, f);
    }
    if (nodes >= check_at) {
      x->nodes = nodes;
      next_check = nodes + SEARCH_CHECK_EVERY;
      check_at = next_check < stop_at ? next_check : stop_at;
      int depth = (int)(f - F);
      int end = search_check(x, nodes, stop_at, depth);
      if (end >= 0) { search_unwind(x, depth); return end; }
    }
  }
}

/* Where the stopped search goes on (c resume-from): the ranks (in the bucket's order) of the path's candidates above
 * `depth`, then at `depth` the rank of the first candidate not yet tried. */
static int resume_path(const ctx_t *x, int depth, uint32_t *out) {
  if (x->W) return bits_resume_path(x, depth, out);
  for (int d = 0; d < depth; d++) out[d] = (uint32_t)(x->F[d].chosen - x->F[d].list - x->F[d].first);
  out[depth] = (uint32_t)(x->F[depth].lo - x->F[depth].first);
  return depth + 1;
}

static int dfs(ctx_t *x, int leaf, uint64_t budget, uint64_t *leaves) {
  if (x->W) return bits_dfs(x, leaf, budget, leaves);
  return x->dyn ? dfs_impl(x, leaf, budget, leaves, true) : dfs_impl(x, leaf, budget, leaves, false);
}

/*
 * Knuth's estimator of the search tree's size: a probe walks from the root choosing one child uniformly at random
 * among the available candidates, and sum over depths of the product of the branching factors seen is an unbiased
 * estimate of the nodes a complete search makes. Printed as `c estimate nodes=E stderr=S probes=N` (the mean and
 * its standard error; heavy-tailed, so S matters). Leaves the search state as it found it.
 */
static void estimate_tree(ctx_t *x, int probes) {
  int n = x->n;
  uint64_t rng = x->o->seed * 0x9E3779B97F4A7C15ull + 12345;
  double sum = 0, sum2 = 0;
  for (int k = 0; k < probes; k++) {
    double product = 1, total = 0;
    int depth = 0;
    if (x->dyn) mcf_reset(x);
    while (depth < n) {
      enter(x, depth);
      frame_t *f = &x->F[depth];
      const cand_t *L = f->list;
      int count = 0, chosen = -1;
      for (int i = f->lo; i < f->hi; i++) {
        uint32_t w;
        memcpy(&w, L[i].c, 4);
        if (x->avail[L[i].cls] == 0 || (w & f->mask) != f->need) continue;
        count++;
        if (search_rand(&rng) % (uint64_t)count == 0) chosen = i; /* reservoir: uniform among the valid */
      }
      if (count == 0) break;
      product *= count;
      total += product;
      const cand_t *c = &L[chosen];
      x->avail[c->cls]--;
      f->chosen = c;
      memcpy(&x->colour[x->cell[depth] * 4], c->c, 4);
      depth++;
    }
    while (depth > 0) x->avail[x->F[--depth].chosen->cls]++;
    sum += total;
    sum2 += total * total;
  }
  if (x->dyn) mcf_reset(x);
  double mean = probes > 0 ? sum / probes : 0;
  double var = probes > 1 ? (sum2 - sum * mean) / (probes - 1) : 0;
  printf("c estimate nodes=%.6g stderr=%.6g probes=%d\n", mean, probes > 0 && var > 0 ? sqrt(var / probes) : 0, probes);
  fflush(stdout);
}

static uint64_t luby(uint64_t i) { /* 1 1 2 1 1 2 4 1 1 2 1 1 2 4 8 ... for i >= 1 */
  for (;;) {
    uint64_t k = 1;
    while ((1ull << k) - 1 < i) k++;
    if ((1ull << k) - 1 == i) return 1ull << (k - 1);
    i -= (1ull << (k - 1)) - 1;
  }
}

/* The smallest depth with at least `want` partial boards, found by bounded probes. */
static int choose_part_depth(ctx_t *x, uint64_t want) {
  const uint64_t budget = 2000000; /* per probe */
  for (int d = 1; d < x->n; d++) {
    uint64_t leaves = 0;
    int end = dfs(x, d, budget, &leaves);
    if (end != END_EXHAUSTED) return d - 1;
    if (leaves >= want) return d - 1;
    if (leaves == 0) return d - 1; /* empty: any depth will do */
  }
  return x->n - 1;
}

void engine_solve(const puzzle_t *p, const options_t *o, result_t *r) {
  if (o->alternate) engine_alternate(p, o, r);
  else search_run(p, o, r, NULL, 0);
}

void search_run(const puzzle_t *p, const options_t *o, result_t *r, struct alt *alt, int me) {
  struct timespec t0;
  uint64_t slice = 0;
  if (alt && alt_begin(alt, me, &t0, &slice)) { r->end = END_STOPPED; r->part_depth = -1; return; }
  ctx_t x;
  setup(&x, p, o);
  if (alt) { x.alt = alt; x.alt_me = me; x.alt_until = slice; x.t0 = t0; }
  x.board_piece = r->board_piece_buf;
  x.board_rot = r->board_rot_buf;
  if (o->best) {
    x.best = calloc((size_t)x.n + 1, sizeof(cand_t));
    x.best_cell = calloc((size_t)x.n + 1, sizeof(int));
  }
  r->positions = x.n;
  tables_build(&x);
  if (o->estimate_probes > 0) estimate_tree(&x, o->estimate_probes);
  int end;
  uint64_t leaves = 0;
  /* A partition: n > 1 processes, or one (n = 1) that numbers the subtrees at a given depth to say how far it got. */
  const bool partitioned = o->part_n > 1 || o->part_depth >= 0;
  if (partitioned && x.n >= 1) {
    x.part_depth = o->part_depth >= 0 && o->part_depth < x.n ? o->part_depth : choose_part_depth(&x, 64ull * (uint64_t)o->part_n);
    x.part_counter = 0;
  }
  if (x.sym_empty) {
    end = END_EXHAUSTED; /* symmetry: the first corner piece is free and every corner it may take is filled */
  } else if (o->part_n > 1 && x.n == 0 && o->part_k != 0) {
    end = END_EXHAUSTED; /* no free cell: the one board is part 0's, the other parts are empty */
  } else if (o->restart_base == 0 || partitioned || o->count) {
    /* A restart would walk solutions already counted again: counting (and a partition) never restarts. */
    if (o->resume_len > 0 && !x.dyn) { /* going on: the subtrees numbered from here on are part_from and after */
      x.resume = o->resume_from;
      x.resume_len = o->resume_len < x.n ? o->resume_len : x.n;
      x.part_counter = o->part_from;
    }
    end = dfs(&x, x.n, 0, &leaves);
  } else {
    uint64_t seed = o->seed ? o->seed : 1;
    for (uint64_t i = 1;; i++) {
      end = dfs(&x, x.n, luby(i) * o->restart_base, &leaves);
      if (end != END_BUDGET) break;
      r->restarts++;
      x.rng = seed * 0x100000001B3ull + i;
      tables_build(&x);
    }
  }
  r->end = (end_kind)end;
  r->nodes = x.nodes;
  r->solutions = x.solutions;
  r->max_depth = x.max_depth;
  r->seconds = search_elapsed(&x);
  r->part_depth = x.part_depth;
  /* Stopped by a limit: the first subtree of the part not known to be exhausted. Below the partition depth the
   * path is inside subtree part_counter - 1 (ours: others are never entered); at or above it every subtree
   * numbered so far is behind. Subtrees below part_from were exhausted by an earlier search. */
  if (x.part_depth >= 0 && (end == END_NODE_LIMIT || end == END_TIME_LIMIT || end == END_STOPPED)) {
    uint64_t next = x.stop_depth > x.part_depth ? x.part_counter - 1 : x.part_counter;
    r->has_part_next = true;
    r->part_next = next > o->part_from ? next : o->part_from;
  }
  if (!x.dyn && x.n > 0 && r->resume_buf && (end == END_NODE_LIMIT || end == END_TIME_LIMIT || end == END_STOPPED)) {
    r->resume_len = resume_path(&x, x.stop_depth, r->resume_buf);
  }
  if (x.solutions == 0) search_print_best(&x);
  free(x.best);
  free(x.best_cell);
  tables_free(&x);
  bits_free(&x);
}
