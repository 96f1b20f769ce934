/*
 * The search's state, shared by search.c (the depth-first loop, static scan orders) and mcf.c (the
 * most-constrained-first order, which chooses the cell of each depth on entering it). Internal to the engine.
 */
#ifndef CUBIST_SEARCH_H
#define CUBIST_SEARCH_H

#include <time.h>
#include "engine.h"

#define MAX_KEYS (1 << 22) /* buckets per table; with more colours fewer sides are keyed and the rest compared */
#define BITS_KINDS 6       /* piece kinds by grey sides: none, one, two adjacent, two opposite, three, four */
#define BITS_WMAX 4        /* the bit-set loop (bits.c) takes up to 256 slots; beyond that the bucket scan runs */
enum { BITS_ONE_SLOT, BITS_ONE_COPY, BITS_COPIES }; /* how the bit-set loop keeps availability */
#define END_BUDGET 100     /* a dfs return: its node budget was spent */
#define SEARCH_CHECK_EVERY (1u << 16) /* nodes between looks at the clock, limits and stop requests */

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

/* One depth of the bit-set loop (bits.c): the first cache line is what each node touches. */
typedef struct {
  uint64_t m[BITS_WMAX]; /* the bucket's candidates not yet tried at this depth */
  const uint64_t *b;     /* the bucket: b[0] its first entry (a cand_t pointer), b[1..W] its slot mask */
  const cand_t *chosen;
  uint64_t bit;          /* the chosen candidate's slot bit, in word `w` */
  uint8_t *dst;
  const uint8_t *key[3];
  int mul1, mul2;
  uint32_t need, mask;
  int w;
  int slow;              /* a candidate here needs more than its bit: compared sides (mask) or the partition's numbering */
  int ka, nka;           /* this depth's and the next depth's kind, times W: where their availability words are */
  const uint64_t *buckets; /* the table: W + 1 words per key */
  /* the next depth's bucket as a function of this depth's candidate: nbase (set on entering, from the cells placed
   * before: nbuckets + the colours of nkey times nmulw) + candidate side `ns` * nstride (0 when the next cell is not
   * this one's neighbour) */
  const uint8_t *nkey[3];
  int nmul[3];
  int ns, nm;
  const uint64_t *nbuckets; /* the next depth's table (NULL at the last depth) */
  const uint64_t *nbase;
  size_t nstride;          /* nm * (W + 1) words */
  size_t nmulw[3];         /* nmul * (W + 1) words */
  uint64_t m0[BITS_WMAX];  /* the candidates on entering (for the covered fraction) */
  bool force;              /* the symmetry's forced corner: only `fmask` (force_cls's slots) while it is free */
  uint64_t fmask[BITS_WMAX];
} bframe_t;

/* A candidate table of the bit-set loop: W + 1 words per key (bframe_t.b), entries in slot order per bucket. */
typedef struct {
  int nkeys;
  uint64_t *buckets;
  cand_t *list;
} btable_t;

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
  int force_depth, force_cls; /* symmetry: the depth whose corner takes class force_cls while it is free (-1: none) */
  table_t ftab;          /* that depth's table with force_cls alone (the bucket scan) */
  int only_cls;          /* while building ftab: the one class a table takes (-1: all) */
  bool sym_empty;        /* symmetry: the first corner piece has no corner left: nothing to search */
  uint8_t *colour;       /* cell*4+d: placed colour */
  int *avail;            /* class -> copies left */
  frame_t *F;            /* depth -> its frame */
  int **free_pieces;     /* class -> its pieces not fixed, piece order */
  uint64_t nodes, solutions, part_counter;
  int part_depth;
  int stop_depth;        /* the search path's depth when a limit or a stop request ended it */
  const uint32_t *resume; /* the main search only: o->resume_from; the depths before resume_len still skip (0 once the */
  int resume_len;         /* search has left the path or reached its last depth) */
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
  /* the bit-set loop (bits.c), for static orders: W > 0 when in use */
  int W;                 /* words per slot mask */
  int *slot0, *nslot;    /* class -> its first slot (within its kind) and number of slots (0: no free copy) */
  int *kind;             /* class -> its kind (grey sides up to rotation; all 0 on unbounded puzzles) */
  uint64_t *clsmask;     /* class*W -> its slots */
  bframe_t *BF;          /* depth -> its frame */
  btable_t btabs[256];
  struct alt *alt;       /* --alternate (alternate.c): the turn shared with the other scan, or NULL */
  int alt_me;            /* this scan's number (0 or 1) */
  uint64_t alt_until;    /* hand the turn over at the first check point at or past this many placements */
  int mode;              /* BITS_ONE_SLOT, BITS_ONE_COPY (some class has two slots) or BITS_COPIES (some class copies) */
} ctx_t;

/* search.c: one search of the problem (engine_solve without --alternate); with `alt`, scan `me` of two alternating */
struct alt;
void search_run(const puzzle_t *p, const options_t *o, result_t *r, struct alt *alt, int me);

/* alternate.c */
void engine_alternate(const puzzle_t *p, const options_t *o, result_t *r);
bool alt_begin(struct alt *a, int me, struct timespec *t0, uint64_t *slice); /* waits for the first turn; true: stop */
int alt_check(ctx_t *x, uint64_t nodes); /* at a check point: END_STOPPED when the other scan decided, else -1 */
uint64_t alt_progress(ctx_t *x, uint64_t nodes, double *covered, int *depth); /* both scans' placements; covered, depth: the larger */

/* search.c, for bits.c */
static inline uint64_t search_rand(uint64_t *s) { /* splitmix64 */
  uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
void search_on_solution(ctx_t *x); /* boards.c */
void search_print_best(ctx_t *x);  /* boards.c: the deepest partial board, when deeper than last printed */

/* The candidate placed at depth i of the current path. */
static inline const cand_t *search_chosen_at(const ctx_t *x, int i) { return x->W ? x->BF[i].chosen : x->F[i].chosen; }

/* Seconds since the search's start (x->t0). */
static inline double search_elapsed(const ctx_t *x) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)(t.tv_sec - x->t0.tv_sec) + (double)(t.tv_nsec - x->t0.tv_nsec) * 1e-9;
}
void search_unwind(ctx_t *x, int depth);
int search_check(ctx_t *x, uint64_t nodes, uint64_t stop_at, int depth);

/* tables.c: the static orders' candidate tables (and the symmetry's forced corner's); tables_build frees the old */
void tables_build_one(ctx_t *x, int rim, int keyed, table_t *t);
void tables_build(ctx_t *x);
void tables_free(ctx_t *x);

/* symmetry.c: --symmetry's excluded corners and forced depth, given the scan order (cells) */
void symmetry_setup(ctx_t *x, const int *order);
/* the corner piece --corner pins, modulo the corner pieces without a twin (0 without --symmetry: no piece is pinned) */
int symmetry_corner(const puzzle_t *p, const options_t *o);

/* bits.c */
bool bits_setup(ctx_t *x);
void bits_build_tables(ctx_t *x);
void bits_free_tables(ctx_t *x);
void bits_free(ctx_t *x); /* everything bits_setup and bits_build_tables made */
int bits_dfs(ctx_t *x, int leaf, uint64_t budget, uint64_t *leaves);
double bits_covered(const ctx_t *x, int depth);
int bits_resume_path(const ctx_t *x, int depth, uint32_t *out); /* the stopped search's c resume-from; its length */

/* mcf.c */
void mcf_setup(ctx_t *x);
void mcf_build_tables(ctx_t *x, void (*build)(ctx_t *, int rim, int keyed, table_t *));
void mcf_reset(ctx_t *x);
void mcf_enter(ctx_t *x, int d);
void mcf_leave(ctx_t *x, int d);

#endif
