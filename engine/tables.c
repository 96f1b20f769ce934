/*
 * The candidate tables of the static orders: per rim mask and keyed sides, every orientation that fits, bucketed by
 * the keyed neighbour colours (shuffled per bucket with a seed). See search.c.
 */
#include <stdlib.h>
#include <string.h>
#include "engine.h"
#include "search.h"


void tables_build_one(ctx_t *x, int rim, int keyed, table_t *t) {
  const puzzle_t *p = x->p;
  int K = p->ncolours, sides[4], ns = 0;
  for (int d = 0; d < 4; d++) if (keyed >> d & 1) sides[ns++] = d;
  t->nkeys = 1;
  for (int j = 0; j < ns; j++) t->nkeys *= K;
  t->start = calloc((size_t)t->nkeys + 2, sizeof(int));
  int cap = 4 * p->nclasses, n = 0;
  cand_t *all = malloc(sizeof(cand_t) * (size_t)cap);
  int *key = malloc(sizeof(int) * (size_t)cap);
  for (int c = 0; c < p->nclasses; c++) {
    if (x->excluded[rim] == c || (x->only_cls >= 0 && c != x->only_cls)) continue;
    int q = p->class_rep[c];
    for (int rot = 0; rot < 4; rot++) {
      cand_t e = { (uint16_t)c, (uint8_t)rot, 0, { 0 } };
      if (!distinct_fitting(p, q, rot, rim, e.c)) continue;
      int k = 0, m = 1;
      for (int j = 0; j < ns; j++) { k += e.c[sides[j]] * m; m *= K; }
      all[n] = e;
      key[n++] = k;
    }
  }
  for (int i = 0; i < n; i++) t->start[key[i] + 1]++;
  for (int k = 0; k < t->nkeys; k++) t->start[k + 1] += t->start[k];
  t->start[t->nkeys + 1] = t->start[t->nkeys];
  t->list = malloc(sizeof(cand_t) * (size_t)(n + 1));
  int *fill = malloc(sizeof(int) * (size_t)(t->nkeys + 1));
  memcpy(fill, t->start, sizeof(int) * (size_t)(t->nkeys + 1));
  for (int i = 0; i < n; i++) t->list[fill[key[i]]++] = all[i];
  if (x->rng) {
    for (int k = 0; k < t->nkeys; k++) {
      for (int i = t->start[k + 1] - 1; i > t->start[k]; i--) {
        int j = t->start[k] + (int)(search_rand(&x->rng) % (uint64_t)(i - t->start[k] + 1));
        cand_t tmp = t->list[i]; t->list[i] = t->list[j]; t->list[j] = tmp;
      }
    }
  }
  free(fill); free(all); free(key);
}

void tables_free(ctx_t *x) {
  for (int i = 0; i < 256; i++) {
    free(x->tabs[i].start); free(x->tabs[i].list);
    x->tabs[i].start = NULL; x->tabs[i].list = NULL;
  }
  free(x->ftab.start); free(x->ftab.list);
  x->ftab.start = NULL; x->ftab.list = NULL;
}

void tables_build(ctx_t *x) {
  tables_free(x);
  if (x->dyn) { mcf_build_tables(x, tables_build_one); return; }
  for (int i = 0; i < x->n; i++) {
    table_t *t = &x->tabs[x->tab_id[i]];
    if (!t->start) tables_build_one(x, x->tab_id[i] >> 4, x->tab_id[i] & 15, t);
    x->F[i].list = t->list;
    x->F[i].start = t->start;
  }
  if (x->force_depth >= 0) { /* the symmetry's forced corner: its table with c alone */
    int id = x->tab_id[x->force_depth];
    x->only_cls = x->force_cls;
    tables_build_one(x, id >> 4, id & 15, &x->ftab);
    x->only_cls = -1;
  }
  if (x->W) bits_build_tables(x);
}
