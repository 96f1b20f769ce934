/*
 * The most-constrained-first order (`--order mcf`): the cell of each depth is chosen when the search enters the
 * depth, as the one with the fewest candidates left (pieces still available whose sides fit the rim and every
 * neighbour placed so far). Only cells next to a fixed or placed cell are considered, unless there is none (then
 * every free cell). Ties go to the first in the short scan order, so the choice depends on the path alone: the
 * parts of a partition (`--part`) all walk the same shallow tree. A cell with no candidate left ends the branch
 * at once (fail first).
 *
 * The buckets are the static orders' tables, keyed by whichever neighbour sides are known when the cell is
 * chosen: a table per (rim mask, keyed sides), built up front for every combination a free cell can meet. The
 * fourth known side of a cell closed on all sides, or those beyond MAX_KEYS, are compared per candidate.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "search.h"

void mcf_setup(ctx_t *x) {
  const puzzle_t *p = x->p;
  x->dyn = true;
  x->max_keyed = 3;
  for (long long k = (long long)p->ncolours * p->ncolours * p->ncolours; x->max_keyed > 0 && k > MAX_KEYS; k /= p->ncolours) x->max_keyed--;
  x->free_cells = malloc(sizeof(int) * ((size_t)x->n + 1));
  memcpy(x->free_cells, x->cell, sizeof(int) * (size_t)x->n);
  x->rim = malloc(sizeof(int) * (size_t)p->cells);
  x->placed = malloc((size_t)p->cells);
  x->nbp = malloc(sizeof(int) * (size_t)p->cells);
  for (int cell = 0; cell < p->cells; cell++) x->rim[cell] = cell_rim(p, cell);
  mcf_reset(x);
}

/* The sides keyed when `known` (a mask of sides) are known: the first max_keyed of them. */
static int keyed_of(const ctx_t *x, int known) {
  int keyed = 0, nk = 0;
  for (int d = 0; d < 4; d++) if ((known >> d & 1) && nk < x->max_keyed) { keyed |= 1 << d; nk++; }
  return keyed;
}

void mcf_build_tables(ctx_t *x, void (*build)(ctx_t *, int rim, int keyed, table_t *)) {
  const puzzle_t *p = x->p;
  for (int i = 0; i < x->n; i++) {
    int cell = x->free_cells[i], sides = 0;
    for (int d = 0; d < 4; d++) if (p->nb[cell * 4 + d] >= 0) sides |= 1 << d;
    for (int known = 0; known < 16; known++) {
      if ((known & sides) != known) continue;
      int id = x->rim[cell] * 16 + keyed_of(x, known);
      if (!x->tabs[id].start) build(x, id >> 4, id & 15, &x->tabs[id]);
    }
  }
}

/* Nothing placed on the path: only the fixed cells count as placed. */
void mcf_reset(ctx_t *x) {
  const puzzle_t *p = x->p;
  for (int cell = 0; cell < p->cells; cell++) x->placed[cell] = p->fixed_piece[cell] >= 0;
  for (int cell = 0; cell < p->cells; cell++) {
    int k = 0;
    for (int d = 0; d < 4; d++) {
      int y = p->nb[cell * 4 + d];
      k += y >= 0 && x->placed[y];
    }
    x->nbp[cell] = k;
  }
}

typedef struct {
  const cand_t *list;
  int lo, hi;
  uint32_t need, mask;
} bucket_t;

/* The bucket of `cell` given the cells placed now. */
static inline bucket_t bucket_of(const ctx_t *x, int cell) {
  const puzzle_t *p = x->p;
  int keyed = 0, nk = 0, key = 0, m = 1;
  uint32_t need = 0, mask = 0;
  for (int d = 0; d < 4; d++) {
    int y = p->nb[cell * 4 + d];
    if (y < 0 || !x->placed[y]) continue;
    int c = x->colour[y * 4 + (d ^ 2)];
    if (nk < x->max_keyed) {
      key += c * m;
      m *= p->ncolours;
      keyed |= 1 << d;
      nk++;
    } else {
      need |= (uint32_t)c << (8 * d);
      mask |= 0xFFu << (8 * d);
    }
  }
  const table_t *t = &x->tabs[x->rim[cell] * 16 + keyed];
  return (bucket_t){ t->list, t->start[key], t->start[key + 1], need, mask };
}

/* The candidates left in `b`, counted up to `cutoff`. */
static inline int count_bucket(const ctx_t *x, bucket_t b, int cutoff) {
  int n = 0;
  const int *avail = x->avail;
  for (int i = b.lo; i < b.hi; i++) {
    uint32_t w;
    memcpy(&w, b.list[i].c, 4);
    if (avail[b.list[i].cls] && (w & b.mask) == b.need && ++n >= cutoff) break;
  }
  return n;
}

static void mark(ctx_t *x, int cell, int delta) {
  const puzzle_t *p = x->p;
  x->placed[cell] = delta > 0;
  for (int d = 0; d < 4; d++) {
    int y = p->nb[cell * 4 + d];
    if (y >= 0) x->nbp[y] += delta;
  }
}

void mcf_enter(ctx_t *x, int d) {
  int best = INT_MAX, at = -1;
  for (int pass = 0; pass < 2 && at < 0; pass++) {
    for (int i = 0; i < x->n && best > 0; i++) {
      int cell = x->free_cells[i];
      if (x->placed[cell] || (pass == 0 && x->nbp[cell] == 0)) continue;
      int k = count_bucket(x, bucket_of(x, cell), best);
      if (k < best) { best = k; at = cell; }
    }
  }
  bucket_t b = bucket_of(x, at);
  x->cell[d] = at;
  mark(x, at, 1);
  frame_t *f = &x->F[d];
  f->list = b.list;
  f->first = f->lo = b.lo;
  f->hi = best == 0 ? b.lo : b.hi; /* no candidate: the branch ends here */
  f->need = b.need;
  f->mask = b.mask;
}

void mcf_leave(ctx_t *x, int d) { mark(x, x->cell[d], -1); }
