/*
 * Score mode's search state, shared by score.c (the lists, the break ramp, the bound, the boards printed and the
 * restarts) and score-dfs.c (the depth-first search and its resume path). See score.c for the search itself.
 */
#ifndef CUBIST_SCORE_H
#define CUBIST_SCORE_H

#include <stdint.h>
#include <time.h>
#include "engine.h"

#define CHECK_EVERY (1u << 14)

typedef struct {
  uint16_t cls;
  uint8_t rot;
  uint8_t c[4];
} ocand_t; /* one orientation of a class */

typedef struct {
  const puzzle_t *p;
  const options_t *o;
  int n, inner_edges;
  int *cell;               /* position -> cell */
  int *nkn;                /* position -> known sides (neighbour fixed or earlier) */
  int *kd, *kidx;          /* position*4+j -> side and colour index of the j-th known side */
  int *nkey;               /* position -> keyed sides (the first min(2, nkn)) */
  ocand_t *rim_list[16];   /* orientations fitting each rim mask, shuffled per restart */
  int rim_len[16];
  ocand_t *bucket[16];     /* per rim mask, sorted by key (c[kd0] + K * c[kd1]) for the position's keyed sides */
  int *bstart[16][16];     /* [rim][keyed mask] -> starts of K*K buckets (built on demand) */
  ocand_t *blist[16][16];
  int *rim;                /* position -> rim mask */
  int *kmask;              /* position -> keyed side mask */
  uint8_t *colour;
  int *avail;
  int *phase, *lo, *hi, *cost;
  const ocand_t **chosen;
  int *allow;
  int budget, from;        /* the break ramp */
  uint64_t nodes, rng;
  int best_breaks;         /* of the best complete board so far (inner_edges + 1: none) */
  int **free_pieces;
  int *board_piece, *board_rot; /* caller's: a perfect board */
  int *best_piece, *best_rot;   /* the best board printed (where --lns starts from) */
  bool one_off;            /* at most one keyed mismatch per placement, from the one-colour buckets */
  double bound_read_at;    /* --bound-file: when it was last read (seconds since t0) */
  const uint32_t *resume;  /* --resume-from: the stopped search's iterators, walked again by the first pass */
  int resume_len;
  uint32_t *resume_out;    /* the caller's: where this search goes on when a limit stops it (c resume-from) */
  int resume_out_len;
  struct timespec t0;
} sctx_t;

/* score.c */
double score_since(const struct timespec *t0);
void score_ramp(sctx_t *x);          /* rebuilds allow[] from the budget */
void score_read_bound(sctx_t *x);    /* --bound-file: takes a tighter bound (at most twice a second) */
void score_report(sctx_t *x, int breaks); /* prints a better complete board (c best, b) */

/* score-dfs.c: one pass of at most `budget` nodes (0: none); an end_kind, or -1 when the budget was spent */
int score_dfs(sctx_t *x, uint64_t budget);

#endif
