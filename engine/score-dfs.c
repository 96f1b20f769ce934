/*
 * Score mode's depth-first search (score.c sets it up and restarts it): at each position the exact candidates first,
 * then, where the ramp allows breaks, those that mismatch on one keyed side; a complete board better than the best
 * is printed and tightens the budget. A search stopped by a limit records where it goes on (c resume-from), and a
 * search given that path walks down it again before its loop (--resume-from).
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include "score.h"

/* Mismatches of candidate c at position i against its known neighbours. */
static inline int mismatches(const sctx_t *x, int i, const ocand_t *c) {
  int m = 0;
  for (int j = 0; j < x->nkn[i]; j++) m += c->c[x->kd[i * 4 + j]] != x->colour[x->kidx[i * 4 + j]];
  return m;
}

static void enter(sctx_t *x, int i) {
  int K = x->p->ncolours, key = 0;
  if (x->nkey[i] >= 1) key = x->colour[x->kidx[i * 4]];
  if (x->nkey[i] >= 2) key += K * x->colour[x->kidx[i * 4 + 1]];
  const int *start = x->bstart[x->rim[i]][x->kmask[i]];
  x->phase[i] = 0;
  x->lo[i] = start[key];
  x->hi[i] = start[key + 1];
}

/* Phase 3 (4) of position i: the bucket of the first (second) keyed side's colour, where the other keyed side
 * mismatches: the candidates with exactly one keyed mismatch, without a scan of the whole rim list. */
static void one_off_enter(sctx_t *x, int i, int phase) {
  int which = phase - 3;
  const int *start = x->bstart[x->rim[i]][1 << x->kd[i * 4 + which]];
  int key = x->colour[x->kidx[i * 4 + which]];
  x->phase[i] = phase;
  x->lo[i] = start[key];
  x->hi[i] = start[key + 1];
}

/* Phase 1 of position i: the whole rim list (candidates that mismatch on both keyed sides: --score-any). */
static void rim_enter(sctx_t *x, int i) {
  x->phase[i] = 1;
  x->lo[i] = 0;
  x->hi[i] = x->rim_len[x->rim[i]];
}

/* The one-colour buckets of position i's keyed side `which` (0 the first, 1 the second): phases 3 and 4. */
static inline const ocand_t *one_off_list(const sctx_t *x, int i, int which) {
  return x->blist[x->rim[i]][1 << x->kd[i * 4 + which]];
}

/* The list that phase `phase` of position i indexes: 0 the bucket of both keyed sides' colours, 1 the whole rim list,
 * 3 (4) the one-colour bucket of the first (second) keyed side. */
static inline const ocand_t *phase_list(const sctx_t *x, int i, int phase) {
  return phase == 0 ? x->blist[x->rim[i]][x->kmask[i]] : phase == 1 ? x->rim_list[x->rim[i]] : one_off_list(x, i, phase - 3);
}

/* A resume step packs a position's iterator: the index of its next candidate and the phase whose list it indexes. */
#define RESUME_PHASES 8

static uint32_t resume_step(int phase, int index) { return (uint32_t)index * RESUME_PHASES + (uint32_t)phase; }

/* Where a search stopped by a limit goes on (c resume-from): at each position up to `depth` the candidate it placed
 * (its phase and index), and at `depth` the next candidate to try. The same seed, restart and options find the same
 * lists, so the steps name the same candidates again. */
static void resume_record(sctx_t *x, int depth) {
  for (int d = 0; d <= depth && d < x->n; d++) x->resume_out[d] = resume_step(x->phase[d], x->lo[d] - (d < depth ? 1 : 0));
  x->resume_out_len = depth < x->n ? depth + 1 : x->n;
}

/* Sets position i's iterator from a resume step: the phase's list entered, the index in it (false, and the position
 * left as entered, when the step does not fit: then the walk ends there and the search goes on from that position's
 * start). */
static bool resume_apply(sctx_t *x, int i, uint32_t step) {
  int phase = (int)(step % RESUME_PHASES), index = (int)(step / RESUME_PHASES);
  enter(x, i);
  if (phase == 1) rim_enter(x, i);
  else if ((phase == 3 || phase == 4) && x->nkey[i] == 2 && x->one_off) one_off_enter(x, i, phase);
  else if (phase != 0 && phase != 2) return false;
  if (index < x->lo[i] || index > x->hi[i]) { enter(x, i); return false; }
  x->phase[i] = phase;
  x->lo[i] = index;
  return true;
}

/* The walk's candidate at position i (resume_apply set its iterator there), its iterator moved past it; NULL when the
 * step does not name an available candidate of its list (the lists are not those of the stopped search). */
static const ocand_t *walk_take(sctx_t *x, int i) {
  int phase = x->phase[i], k = x->lo[i];
  if (k >= x->hi[i] || phase == 2) return NULL;
  const ocand_t *L = phase_list(x, i, phase);
  if (x->avail[L[k].cls] == 0) return NULL;
  x->lo[i] = k + 1;
  return &L[k];
}

/* One pass of at most `budget` nodes (0: none). Returns an end_kind, or -1 when the budget was spent. */
int score_dfs(sctx_t *x, uint64_t budget) {
  const options_t *o = x->o;
  int n = x->n, depth = 0, used = 0;
  uint64_t stop_at = budget ? x->nodes + budget : UINT64_MAX;
  if (o->node_limit && o->node_limit < stop_at) stop_at = o->node_limit;
  uint64_t next_check = x->nodes + CHECK_EVERY;
  if (n == 0) { if (x->best_breaks > 0) { x->best_breaks = 0; score_report(x, 0); } return END_EXHAUSTED; }
  enter(x, 0);
  /* --resume-from: positions below `walk` - 1 take their stopped search's candidate again, and the position at
   * `walk` - 1 goes on from its next candidate */
  int walk = x->resume_len < n ? x->resume_len : n;
  x->resume_len = 0;
  if (walk > 0 && (!resume_apply(x, 0, x->resume[0]) || walk == 1)) walk = 0;
  for (;;) {
    /* the walk places what the stopped search had placed, as it was placed then (under the bound of then), uncounted */
    const ocand_t *c = depth < walk - 1 ? walk_take(x, depth) : NULL;
    int cost = c ? mismatches(x, depth, c) : 0;
    bool again = c != NULL;
    if (!c) walk = 0;
    while (!c) {
      if (x->phase[depth] == 0) {
        const ocand_t *L = phase_list(x, depth, 0);
        int i = x->lo[depth], e = x->hi[depth];
        for (; i < e; i++) {
          if (x->avail[L[i].cls] == 0) continue;
          int m = x->nkn[depth] > 2 ? mismatches(x, depth, &L[i]) : 0;
          if (used + m <= x->allow[depth]) { c = &L[i]; cost = m; break; }
        }
        x->lo[depth] = i + 1;
        if (c) break;
        if (used >= x->allow[depth] || x->nkn[depth] == 0) { x->phase[depth] = 2; break; }
        if (x->nkey[depth] == 2 && x->one_off) { one_off_enter(x, depth, 3); continue; }
        rim_enter(x, depth);
      } else if (x->phase[depth] == 1) {
        const ocand_t *L = phase_list(x, depth, 1);
        int i = x->lo[depth], e = x->hi[depth], room = x->allow[depth] - used;
        for (; i < e; i++) {
          if (x->avail[L[i].cls] == 0) continue;
          /* a candidate whose keyed sides match was in the bucket already */
          int km = 0;
          for (int j = 0; j < x->nkey[depth]; j++) km += L[i].c[x->kd[depth * 4 + j]] != x->colour[x->kidx[depth * 4 + j]];
          if (km == 0) continue;
          int m = mismatches(x, depth, &L[i]);
          if (m <= room) { c = &L[i]; cost = m; break; }
        }
        x->lo[depth] = i + 1;
        if (!c) x->phase[depth] = 2;
      } else if (x->phase[depth] >= 3) {
        /* one keyed side matches (the bucket of that side's colour), the other does not */
        int which = x->phase[depth] - 3, d = x->kd[depth * 4 + 1 - which];
        uint8_t other = x->colour[x->kidx[depth * 4 + 1 - which]];
        const ocand_t *L = one_off_list(x, depth, which);
        int i = x->lo[depth], e = x->hi[depth], room = x->allow[depth] - used;
        for (; i < e; i++) {
          if (x->avail[L[i].cls] == 0 || L[i].c[d] == other) continue;
          int m = x->nkn[depth] > 2 ? mismatches(x, depth, &L[i]) : 1;
          if (m <= room) { c = &L[i]; cost = m; break; }
        }
        x->lo[depth] = i + 1;
        if (c) break;
        if (which == 0) one_off_enter(x, depth, 4);
        else x->phase[depth] = 2;
      } else {
        break;
      }
    }
    if (!c) {
      if (depth == 0) return END_EXHAUSTED;
      depth--;
      x->avail[x->chosen[depth]->cls]++;
      used -= x->cost[depth];
      continue;
    }
    if (!again) x->nodes++;
    x->avail[c->cls]--;
    x->chosen[depth] = c;
    x->cost[depth] = cost;
    used += cost;
    memcpy(&x->colour[x->cell[depth] * 4], c->c, 4);
    depth++;
    if (depth == n) {
      depth--;
      if (used < x->best_breaks) {
        x->best_breaks = used;
        score_report(x, used);
        if (used == 0) { x->avail[c->cls]++; for (int d = 0; d < depth; d++) x->avail[x->chosen[d]->cls]++; return END_SOLUTION_LIMIT; }
        x->budget = used - 1;
        score_ramp(x);
      }
      x->avail[c->cls]++;
      used -= cost;
    } else {
      enter(x, depth);
      if (depth < walk && (!resume_apply(x, depth, x->resume[depth]) || depth == walk - 1)) walk = 0;
    }
    if (x->nodes >= next_check || x->nodes >= stop_at) {
      next_check = x->nodes + CHECK_EVERY;
      int end = -2;
      if (x->nodes >= stop_at) end = o->node_limit && x->nodes >= o->node_limit ? END_NODE_LIMIT : -1;
      else if (engine_stop_requested) end = END_STOPPED;
      else if (o->time_limit_s > 0 && score_since(&x->t0) >= o->time_limit_s) end = END_TIME_LIMIT;
      else if (o->lns && x->best_breaks <= x->inner_edges && score_since(&x->t0) >= o->lns_after_s) end = -3;
      if (end == -2 && o->bound_file) score_read_bound(x);
      if (end != -2) {
        if (x->resume_out && end != -1 && end != -3) resume_record(x, depth);
        while (depth > 0) x->avail[x->chosen[--depth]->cls]++;
        return end;
      }
    }
  }
}
