/*
 * The bit-set inner loop of the static scan orders (`--loop bits`, the default).
 *
 * Every free piece class gets a slot (a bit; a class with two orientations that meet the same key in some table
 * gets two consecutive slots). A bucket of a candidate table is then a slot mask plus its entries in slot order,
 * and the candidates of a node are `bucket mask & available mask`: the loop walks set bits (count trailing zeros)
 * and finds an entry by its rank in the bucket (popcount), where the bucket scan (search.c) tests every entry for
 * availability. Slots are numbered per kind (the pattern of grey sides: inner, edge and corner pieces never meet in
 * one table), so an 8x8 or 10x10 board fits in one 64-bit word; availability is one mask of W words per kind
 * (W = the largest kind's slots / 64 rounded up, at most BITS_WMAX), updated when a class's last copy is taken or
 * its first is given back.
 *
 * The search is the same tree in the same order as the bucket scan: slots run in class order and each bucket's
 * entries in rotation order, so without a seed both loops place the same pieces in the same order (tested: node
 * counts agree). A seed permutes the slots (a random global value order) instead of shuffling each bucket.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "search.h"

#define BITS_TABLE_BYTES (64u << 20) /* all masks together; beyond this the bucket scan is used */

/* The distinct placed tuples of class c that fit `rim` (grey exactly there), as keys of the sides in `keyed`. */
static int class_keys(const ctx_t *x, int c, int rim, int keyed, int *key, uint8_t (*col)[4], int *rot) {
  const puzzle_t *p = x->p;
  int q = p->class_rep[c], n = 0;
  for (int r = 0; r < 4; r++) {
    uint8_t e[4];
    if (!distinct_fitting(p, q, r, rim, e)) continue;
    int k = 0, m = 1;
    for (int d = 0; d < 4; d++) if (keyed >> d & 1) { k += e[d] * m; m *= p->ncolours; }
    memcpy(col[n], e, 4);
    key[n] = k;
    rot[n++] = r;
  }
  return n;
}

/* A rim mask's or a piece's grey sides up to rotation, as a kind 0..BITS_KINDS-1 (unbounded puzzles: all 0). */
static int kind_of_mask(int m) {
  int best = m;
  for (int r = 1; r < 4; r++) { int t = ((m << r) | (m >> (4 - r))) & 15; if (t < best) best = t; }
  switch (best) { case 0: return 0; case 1: return 1; case 3: return 2; case 5: return 3; case 7: return 4; default: return 5; }
}

static int class_kind(const puzzle_t *p, int c) {
  if (!p->bounded) return 0;
  int q = p->class_rep[c], m = 0;
  for (int d = 0; d < 4; d++) if (p->edges[q][d] == 0) m |= 1 << d;
  return kind_of_mask(m);
}

bool bits_setup(ctx_t *x) {
  const puzzle_t *p = x->p;
  int C = p->nclasses;
  x->slot0 = malloc(sizeof(int) * (size_t)C);
  x->nslot = malloc(sizeof(int) * (size_t)C);
  x->kind = malloc(sizeof(int) * (size_t)C);
  int slots[BITS_KINDS] = { 0 };
  size_t keys = 0;
  bool seen[256] = { false };
  for (int i = 0; i < x->n; i++) {
    int id = x->tab_id[i];
    if (seen[id]) continue;
    seen[id] = true;
    int ns = __builtin_popcount((unsigned)(id & 15));
    size_t nk = 1;
    for (int j = 0; j < ns; j++) nk *= (size_t)p->ncolours;
    keys += nk;
  }
  for (int c = 0; c < C; c++) {
    int most = 0;
    if (x->avail[c] > 0) {
      for (int id = 0; id < 256; id++) {
        if (!seen[id] || x->excluded[id >> 4] == c) continue;
        int key[4], rot[4], n;
        uint8_t col[4][4];
        n = class_keys(x, c, id >> 4, id & 15, key, col, rot);
        for (int a = 0; a < n; a++) {
          int same = 0;
          for (int b = 0; b < n; b++) same += key[b] == key[a];
          if (same > most) most = same;
        }
      }
    }
    x->nslot[c] = most;
    x->kind[c] = class_kind(p, c);
    slots[x->kind[c]] += most;
  }
  int W = 1;
  for (int k = 0; k < BITS_KINDS; k++) if ((slots[k] + 63) / 64 > W) W = (slots[k] + 63) / 64;
  if (W > BITS_WMAX || keys * (size_t)W * 8 > BITS_TABLE_BYTES) {
    free(x->slot0); free(x->nslot); free(x->kind);
    x->slot0 = x->nslot = x->kind = NULL;
    return false;
  }
  x->W = W;
  x->mode = BITS_ONE_SLOT;
  for (int c = 0; c < C; c++) if (x->nslot[c] > 1 && x->mode < BITS_ONE_COPY) x->mode = BITS_ONE_COPY;
  for (int c = 0; c < C; c++) if (x->avail[c] > 1) x->mode = BITS_COPIES;
  x->clsmask = calloc((size_t)C * BITS_WMAX, sizeof(uint64_t));
  x->BF = calloc((size_t)x->n + 1, sizeof(bframe_t));
  for (int i = 0; i < x->n; i++) {
    const frame_t *g = &x->F[i];
    bframe_t *f = &x->BF[i];
    for (int j = 0; j < 3; j++) f->key[j] = g->key[j];
    f->mul1 = g->mul1; f->mul2 = g->mul2;
    f->mask = g->mask;
    f->dst = g->dst;
    f->ka = (p->bounded ? kind_of_mask(x->tab_id[i] >> 4) : 0) * W;
  }
  for (int i = 0; i + 1 < x->n; i++) x->BF[i].nka = x->BF[i + 1].ka;
  /* The next depth's keyed sides: the one on this depth's cell comes from the candidate, the others from the board. */
  static const uint8_t zero = 0;
  for (int i = 0; i < x->n; i++) {
    bframe_t *f = &x->BF[i];
    f->nkey[0] = f->nkey[1] = f->nkey[2] = &zero;
    f->ns = 0; f->nm = 0;
    if (i + 1 >= x->n) continue;
    const frame_t *g = &x->F[i + 1];
    const uint8_t *mine = &x->colour[x->cell[i] * 4];
    int muls[3] = { 1, g->mul1, g->mul2 }, k = 0;
    for (int j = 0; j < 3; j++) {
      if (g->key[j] >= mine && g->key[j] < mine + 4) { f->ns = (int)(g->key[j] - mine); f->nm = muls[j]; }
      else { f->nkey[k] = g->key[j]; f->nmul[k++] = muls[j]; }
    }
  }
  return true;
}

void bits_free_tables(ctx_t *x) {
  for (int i = 0; i < 256; i++) {
    free(x->btabs[i].buckets); free(x->btabs[i].list);
    memset(&x->btabs[i], 0, sizeof x->btabs[i]);
  }
}

void bits_free(ctx_t *x) {
  bits_free_tables(x);
  free(x->slot0); free(x->nslot); free(x->kind); free(x->clsmask); free(x->BF);
  x->slot0 = x->nslot = x->kind = NULL;
  x->clsmask = NULL;
  x->BF = NULL;
  x->W = 0;
}

static void build_bits_table(ctx_t *x, const int *order, int rim, int keyed, btable_t *t) {
  const puzzle_t *p = x->p;
  int W = x->W, ns = __builtin_popcount((unsigned)keyed);
  size_t S = (size_t)W + 1;
  t->nkeys = 1;
  for (int j = 0; j < ns; j++) t->nkeys *= p->ncolours;
  t->buckets = calloc((size_t)t->nkeys * S, sizeof(uint64_t));
  int *start = calloc((size_t)t->nkeys + 1, sizeof(int));
  int cap = 4 * p->nclasses + 1, n = 0;
  cand_t *all = malloc(sizeof(cand_t) * (size_t)cap);
  int *key = malloc(sizeof(int) * (size_t)cap);
  for (int i = 0; i < p->nclasses; i++) {
    int c = order[i];
    if (x->nslot[c] == 0 || x->excluded[rim] == c) continue;
    int k[4], rot[4], m;
    uint8_t col[4][4];
    m = class_keys(x, c, rim, keyed, k, col, rot);
    for (int a = 0; a < m; a++) {
      int occ = 0;
      for (int b = 0; b < a; b++) occ += k[b] == k[a];
      int slot = x->slot0[c] + occ;
      t->buckets[(size_t)k[a] * S + 1 + (size_t)(slot >> 6)] |= 1ull << (slot & 63);
      cand_t e = { (uint16_t)c, (uint8_t)rot[a], 0, { col[a][0], col[a][1], col[a][2], col[a][3] } };
      all[n] = e;
      key[n++] = k[a];
    }
  }
  /* a stable counting sort by key keeps each bucket in slot order (classes were taken in slot order) */
  for (int i = 0; i < n; i++) start[key[i] + 1]++;
  for (int k = 0; k < t->nkeys; k++) start[k + 1] += start[k];
  t->list = malloc(sizeof(cand_t) * (size_t)(n + 1));
  for (int k = 0; k < t->nkeys; k++) t->buckets[(size_t)k * S] = (uint64_t)(uintptr_t)(t->list + start[k]);
  for (int i = 0; i < n; i++) t->list[start[key[i]]++] = all[i];
  free(start); free(all); free(key);
}

/* Slots in class order, or in an order drawn from the search's generator when it has a seed. */
void bits_build_tables(ctx_t *x) {
  const puzzle_t *p = x->p;
  int C = p->nclasses, W = x->W;
  bits_free_tables(x);
  int *order = malloc(sizeof(int) * (size_t)C);
  for (int c = 0; c < C; c++) order[c] = c;
  if (x->rng) {
    for (int i = C - 1; i > 0; i--) {
      int j = (int)(search_rand(&x->rng) % (uint64_t)(i + 1));
      int t = order[i]; order[i] = order[j]; order[j] = t;
    }
  }
  memset(x->clsmask, 0, sizeof(uint64_t) * (size_t)C * BITS_WMAX);
  int next[BITS_KINDS] = { 0 };
  for (int i = 0; i < C; i++) {
    int c = order[i], s = next[x->kind[c]];
    x->slot0[c] = s;
    for (int j = 0; j < x->nslot[c]; j++, s++) x->clsmask[(size_t)c * (size_t)W + (size_t)(s >> 6)] |= 1ull << (s & 63);
    next[x->kind[c]] = s;
  }
  for (int i = 0; i < x->n; i++) {
    int id = x->tab_id[i];
    btable_t *t = &x->btabs[id];
    if (!t->buckets) build_bits_table(x, order, id >> 4, id & 15, t);
    x->BF[i].buckets = t->buckets;
  }
  for (int i = 0; i < x->n; i++) x->BF[i].nbuckets = i + 1 < x->n ? x->BF[i + 1].buckets : NULL;
  if (x->force_depth >= 0) {
    bframe_t *f = &x->BF[x->force_depth];
    f->force = true;
    for (int w = 0; w < W; w++) f->fmask[w] = x->clsmask[(size_t)x->force_cls * (size_t)W + (size_t)w];
  }
  free(order);
}

/* The share of this pass's tree already searched (as search.c's covered): each candidate an equal share. */
double bits_covered(const ctx_t *x, int depth) {
  double share = 1, done = 0;
  for (int d = 0; d < depth; d++) {
    const bframe_t *f = &x->BF[d];
    int left = 0, tot = 0;
    for (int w = 0; w < x->W; w++) { left += __builtin_popcountll(f->m[w]); tot += __builtin_popcountll(f->m0[w]); }
    if (tot <= 0) break;
    done += share * (double)(tot - left - 1) / tot;
    share /= tot;
  }
  return done;
}

/* Sets up depth f: its bucket (`b`, when the parent's peek found it already) and the candidates still available. */
static inline __attribute__((always_inline)) void enter(const ctx_t *x, bframe_t *f, const uint64_t *A, const int W, const uint64_t *b) {
  if (!b) {
    int key = *f->key[0] + *f->key[1] * f->mul1 + *f->key[2] * f->mul2;
    b = f->buckets + (size_t)key * (size_t)(W + 1);
  }
  f->b = b;
  for (int w = 0; w < W; w++) f->m[w] = b[1 + w] & A[f->ka + w];
  if (f->force) { /* the symmetry's forced corner takes its class while that is free */
    uint64_t free_ = 0;
    for (int w = 0; w < W; w++) free_ |= A[f->ka + w] & f->fmask[w];
    if (free_) for (int w = 0; w < W; w++) f->m[w] &= f->fmask[w];
  }
  for (int w = 0; w < W; w++) f->m0[w] = f->m[w];
  if (f->nbuckets) f->nbase = f->nbuckets + *f->nkey[0] * f->nmulw[0] + *f->nkey[1] * f->nmulw[1] + *f->nkey[2] * f->nmulw[2];
  if (f->mask) {
    uint32_t need = 0;
    for (int s = 0; s < 4; s++) {
      int ci = x->chk_idx[(f - x->BF) * 4 + s];
      if (ci >= 0) need |= (uint32_t)x->colour[ci] << (8 * s);
    }
    f->need = need;
  }
}

/* Taking a class's copy, giving it back: with one copy and one slot per class that is the slot's bit, with one
 * copy its slots' bits; with copies, the count says when the last is taken or the first given back. */
#define TAKE(f, c) do { \
    uint64_t *a_ = A + (f)->ka; \
    if (mode == BITS_ONE_SLOT) a_[(f)->w] ^= (f)->bit; \
    else if (mode == BITS_ONE_COPY) for (int w_ = 0; w_ < W; w_++) a_[w_] ^= CM[(c)->cls * W + w_]; \
    else if (--avail[(c)->cls] == 0) for (int w_ = 0; w_ < W; w_++) a_[w_] &= ~CM[(c)->cls * W + w_]; \
  } while (0)
#define GIVE(f) do { \
    uint64_t *a_ = A + (f)->ka; \
    if (mode == BITS_ONE_SLOT) a_[(f)->w] ^= (f)->bit; \
    else if (mode == BITS_ONE_COPY) for (int w_ = 0; w_ < W; w_++) a_[w_] ^= CM[(f)->chosen->cls * W + w_]; \
    else if (avail[(f)->chosen->cls]++ == 0) for (int w_ = 0; w_ < W; w_++) a_[w_] |= CM[(f)->chosen->cls * W + w_]; \
  } while (0)

/* As search.c's dfs_impl, for static orders, with the candidates as bit sets; W and mode are constants per caller. */
static inline __attribute__((always_inline)) int dfs_impl(ctx_t *x, int leaf, uint64_t budget, uint64_t *leaves, const int W, const int mode) {
  const options_t *o = x->o;
  int n = x->n;
  int *restrict avail = x->avail;
  const uint64_t *restrict CM = x->clsmask;
  uint64_t A[BITS_KINDS * BITS_WMAX] = { 0 }; /* per kind, W words */
  for (int c = 0; c < x->p->nclasses; c++) if (avail[c] > 0) for (int w = 0; w < W; w++) A[x->kind[c] * W + w] |= CM[c * W + w];
  bframe_t *const F = x->BF;
  uint64_t stop_at = budget ? x->nodes + budget : UINT64_MAX;
  if (o->node_limit && o->node_limit < stop_at) stop_at = o->node_limit;
  uint64_t next_check = x->nodes + SEARCH_CHECK_EVERY;
  uint64_t nodes = x->nodes, check_at = next_check < stop_at ? next_check : stop_at;
  if (leaf == 0) {
    if (n == 0) { x->solutions++; search_on_solution(x); return o->count && !(o->solution_limit && x->solutions >= o->solution_limit) ? END_EXHAUSTED : END_SOLUTION_LIMIT; }
    (*leaves)++;
    return END_EXHAUSTED;
  }
  bframe_t *const Fleaf = F + leaf, *const Fpart = x->part_depth >= 0 ? F + x->part_depth : NULL;
  for (bframe_t *g = F; g < F + n; g++) {
    g->slow = g->mask != 0 || g == Fpart;
    g->nstride = (size_t)g->nm * (size_t)(W + 1);
    for (int j = 0; j < 3; j++) g->nmulw[j] = (size_t)g->nmul[j] * (size_t)(W + 1);
  }
  const uint64_t part_n = (uint64_t)o->part_n, part_k = (uint64_t)o->part_k, part_from = o->part_from;
  bframe_t *Fmax = F + x->max_depth;
  /* the peek below runs at depths before Fpeek: not at the leaf's parent, nor where a path would go deeper than
   * before; and never on the node that reaches a check point */
  bframe_t *Fpeek = Fmax < Fleaf - 1 ? Fmax : Fleaf - 1;
  uint64_t peek_until = check_at - 1;
  bframe_t *f = F;
  enter(x, f, A, W, NULL);
  /* --resume-from: down the stopped search's path again, uncounted, before the loop (which then carries no test) */
  for (int d = 0; d < x->resume_len; d++) {
    const uint32_t want = x->resume[d];
    uint32_t seen = 0;
    int hw = -1;
    uint64_t hbit = 0;
    for (int w = 0; w < W && hw < 0; w++) { /* drop the candidates ranked below the path's: searched before */
      const uint64_t all = f->b[1 + w];
      const uint32_t cnt = (uint32_t)__builtin_popcountll(all);
      if (seen + cnt <= want) { f->m[w] = 0; seen += cnt; continue; }
      uint64_t rest = all;
      for (uint32_t j = seen; j < want; j++) rest &= rest - 1;
      hbit = rest & -rest;
      hw = w;
      f->m[w] &= ~(hbit - 1);
    }
    /* the last depth goes on from its rank; a path the search cannot take (not this problem's) ends the walk there */
    if (d == x->resume_len - 1 || hw < 0 || !(f->m[hw] & hbit) || f + 1 >= Fleaf) break;
    const cand_t *c = (const cand_t *)(uintptr_t)f->b[0] + want;
    if (f->mask) {
      uint32_t wd;
      memcpy(&wd, c->c, 4);
      if ((wd & f->mask) != f->need) break;
    }
    if (f == Fpart) x->part_counter++;
    f->m[hw] ^= hbit;
    f->bit = hbit;
    f->w = hw;
    TAKE(f, c);
    f->chosen = c;
    memcpy(f->dst, c->c, 4);
    f++;
    if (f > Fmax) {
      Fmax = f;
      Fpeek = Fmax < Fleaf - 1 ? Fmax : Fleaf - 1;
      x->max_depth = (int)(f - F);
    }
    enter(x, f, A, W, NULL);
  }
  x->resume_len = 0;
  for (;;) {
    const cand_t *c = NULL;
    const uint64_t *peeked = NULL;
    for (;;) {
      int w = 0;
      while (w < W && f->m[w] == 0) w++;
      if (w == W) break;
      uint64_t mw = f->m[w], bit = mw & -mw;
      f->m[w] = mw ^ bit;
      int r = __builtin_popcountll(f->b[1 + w] & (bit - 1));
      for (int v = 0; v < w; v++) r += __builtin_popcountll(f->b[1 + v]);
      const cand_t *e = (const cand_t *)(uintptr_t)f->b[0] + r;
      if (f->slow) { /* one test per candidate for the two rare cases */
        if (f->mask) {
          uint32_t wd;
          memcpy(&wd, e->c, 4);
          if ((wd & f->mask) != f->need) continue;
        }
        if (f == Fpart) { /* ours: numbered k mod n, and not below from (searched before) */
          uint64_t num = x->part_counter++;
          if (num % part_n != part_k || num < part_from) continue;
        }
      }
      /* A dead end seen from here: the next depth would have no candidate left. The placement counts as made
       * (and undone), as in the bucket scan; only a path that goes deeper than before, reaches the leaf or a
       * check point takes the long way. */
      if (f < Fpeek && nodes < peek_until) {
        const uint64_t *nb = f->nbase + e->c[f->ns] * f->nstride;
        uint64_t any = 0;
        const uint64_t *na = A + f->nka;
        if (f->nka != f->ka) for (int v = 0; v < W; v++) any |= nb[1 + v] & na[v];
        else if (mode == BITS_ONE_SLOT) for (int v = 0; v < W; v++) any |= nb[1 + v] & na[v] & ~(v == w ? bit : 0);
        else if (mode == BITS_ONE_COPY || avail[e->cls] == 1) for (int v = 0; v < W; v++) any |= nb[1 + v] & na[v] & ~CM[e->cls * W + v];
        else for (int v = 0; v < W; v++) any |= nb[1 + v] & na[v];
        if (!any) { nodes++; continue; }
        peeked = nb;
      }
      f->bit = bit;
      f->w = w;
      c = e;
      break;
    }
    if (!c) {
      if (f == F) { x->nodes = nodes; return END_EXHAUSTED; }
      f--;
      GIVE(f);
      continue;
    }
    nodes++;
    TAKE(f, c);
    f->chosen = c;
    memcpy(f->dst, c->c, 4);
    f++;
    if (f > Fmax) {
      Fmax = f;
      Fpeek = Fmax < Fleaf - 1 ? Fmax : Fleaf - 1;
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
      GIVE(f);
    } else {
      enter(x, f, A, W, peeked);
    }
    if (nodes >= check_at) {
      x->nodes = nodes;
      next_check = nodes + SEARCH_CHECK_EVERY;
      check_at = next_check < stop_at ? next_check : stop_at;
      peek_until = check_at - 1;
      int depth = (int)(f - F);
      int end = search_check(x, nodes, stop_at, depth);
      if (end >= 0) { search_unwind(x, depth); return end; }
    }
  }
}

#define BY_WORDS(mode) \
  switch (x->W) { \
    case 1: return dfs_impl(x, leaf, budget, leaves, 1, mode); \
    case 2: return dfs_impl(x, leaf, budget, leaves, 2, mode); \
    case 3: return dfs_impl(x, leaf, budget, leaves, 3, mode); \
    default: return dfs_impl(x, leaf, budget, leaves, 4, mode); \
  }

int bits_dfs(ctx_t *x, int leaf, uint64_t budget, uint64_t *leaves) {
  if (x->mode == BITS_ONE_SLOT) BY_WORDS(BITS_ONE_SLOT)
  if (x->mode == BITS_ONE_COPY) BY_WORDS(BITS_ONE_COPY)
  BY_WORDS(BITS_COPIES)
}

/* Where the search stopped at `depth` goes on (the engine's c resume-from): at each depth above it the rank of the
 * candidate on the path (in the bucket's order), at `depth` the rank of the first candidate not yet tried (the
 * bucket's size when none is left). */
int bits_resume_path(const ctx_t *x, int depth, uint32_t *out) {
  const int W = x->W;
  for (int d = 0; d < depth; d++) out[d] = (uint32_t)(x->BF[d].chosen - (const cand_t *)(uintptr_t)x->BF[d].b[0]);
  const bframe_t *f = &x->BF[depth];
  uint32_t next = 0;
  int w = 0;
  while (w < W && f->m[w] == 0) w++;
  for (int v = 0; v < W && v < w; v++) next += (uint32_t)__builtin_popcountll(f->b[1 + v]);
  if (w < W) next += (uint32_t)__builtin_popcountll(f->b[1 + w] & ((f->m[w] & -f->m[w]) - 1));
  out[depth] = next;
  return depth + 1;
}
