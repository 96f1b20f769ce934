/*
 * The search's state, shared by search.c (the depth-first loop, static scan orders) and mcf.c (the
 * most-constrained-first order, which chooses the cell of each depth on entering it). Internal to the engine.
 */
#ifndef CUBIST_SEARCH_H
#define CUBIST_SEARCH_H

#include <time.h>
#include "engine.h"

#define MAX_KEYS (1 << 22) /* buckets per table; with more colours fewer sides are keyed and the rest compared */

/* One depth of the search path, kept together so the inner loop touches one cache line per depth. */
typedef struct {
  const cand_t *list;    /* the table's entries; the bucket is list[lo .. hi), lo the next to try */
  int lo, hi, first;     /* first: the bucket's first entry (for the covered fraction) */
  uint32_t need, mask;   /* compared sides: the required colours in a placed-colour word, and their mask (0: none) */
  uint8_t *dst;          /* &colour[cell * 4]: where a placement writes its colours */
  const cand_t *chosen;
  /* static orders: the bucket key's inputs, fixed before the search */
  const int *start;
  const uint8_t *key[3]; /* the keyed sides' placed colours (unused ones point at a constant zero) */
  int mul1, mul2;
} frame_t;

typedef struct {
  const puzzle_t *p;
  const options_t *o;
  int n;                 /* positions (free cells) */
  int *cell;             /* position -> cell */
  int *nk;               /* keyed sides per position (0..3) */
  int *kidx, *kmul;      /* position*3+j -> colour index (cell*4+side) and multiplier */
  int *chk;              /* sides compared per candidate (beyond the keyed ones): 1 when any, else -1 */
  int *chk_idx;          /* position*4+d -> colour index of a compared side d, or -1 */
  uint32_t *chk_mask;    /* position -> mask of the compared sides' bytes in the placed-colour word */
  int *tab_id;           /* position -> table */
  table_t tabs[256];     /* by rim mask * 16 + keyed sides mask */
  int *excluded;         /* rim mask -> class left out of that table (symmetry breaking) or -1 */
  uint8_t *colour;       /* cell*4+d: placed colour */
  int *avail;            /* class -> copies left */
  frame_t *F;            /* depth -> its frame */
  int **free_pieces;     /* class -> its pieces not fixed, piece order */
  uint64_t nodes, solutions, part_counter;
  int part_depth;
  int max_depth;
  uint64_t rng;
  struct timespec t0;
  double next_progress;
  int *board_piece, *board_rot; /* the first solution (caller's) */
  cand_t *best;          /* with o->best: the deepest partial board's choices (copies: restarts rebuild tables) */
  int *best_cell;        /* and their cells */
  int best_printed;      /* its depth when last printed */
  /* the most-constrained-first order (--order mcf, mcf.c): the cell of each depth is chosen on entering it */
  bool dyn;
  int max_keyed;         /* neighbour sides keyed per bucket (the others are compared) */
  int *free_cells;       /* the free cells in the tie-break order (short) */
  int *rim;              /* cell -> rim mask */
  uint8_t *placed;       /* cell -> fixed, or placed on the current path (or chosen at the current depth) */
  int *nbp;              /* cell -> neighbours fixed or placed */
} ctx_t;

/* mcf.c */
void mcf_setup(ctx_t *x);
void mcf_build_tables(ctx_t *x, void (*build)(ctx_t *, int rim, int keyed, table_t *));
void mcf_reset(ctx_t *x);
void mcf_enter(ctx_t *x, int d);
void mcf_leave(ctx_t *x, int d);

#endif
