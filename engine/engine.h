/*
 * cubist-engine: the native placement engine (a row-scan backtracker with precomputed candidate tables).
 *
 * A problem is a rectangular edge-matching puzzle (pieces listed N E S W, colour 0 the grey rim of bounded
 * puzzles) plus fixed placements (the hints and a cube's placements). The engine fills the other cells in a
 * static scan order. At each position the sides whose neighbour is already placed (or is the rim) are known,
 * so the candidates are one bucket of a table keyed by those colours: the inner loop is a bucket scan with one
 * availability test per entry. Identical pieces form one class (placed once per board up to swapping copies),
 * and a symmetric piece's equal rotations are one orientation, so counts are of distinct boards.
 *
 * See docs/engine.md for the wire format (stdin, argv, stdout, exit codes).
 */
#ifndef CUBIST_ENGINE_H
#define CUBIST_ENGINE_H

#include <stdint.h>
#include <stdbool.h>
#include <time.h>

#define MAX_SIDE 64
#define MAX_CELLS (MAX_SIDE * MAX_SIDE)
#define MAX_COLOURS 256

/* One orientation of a piece class as placed: colours N E S W. */
typedef struct {
  uint16_t cls;
  uint8_t rot; /* clockwise quarter turns of the class representative */
  uint8_t pad;
  uint8_t c[4];
} cand_t;

/* A candidate table for one (rim mask, keyed sides) pair: bucket k is list[start[k] .. start[k+1]). */
typedef struct {
  int nkeys;
  int *start;
  cand_t *list;
} table_t;

typedef struct {
  int rows, cols, cells, npieces, ncolours;
  bool bounded;
  uint8_t (*edges)[4];  /* listed colours per piece */
  int nclasses;
  int *piece_class;     /* piece -> class */
  int *piece_shift;     /* piece p = representative rotated by shift: rot for p = (rot_rep - shift) & 3 */
  int *class_rep;       /* class -> representative piece */
  int *class_count;     /* class -> number of pieces */
  int *fixed_piece;     /* cell -> piece or -1 */
  int *fixed_rot;       /* cell -> rot */
  int nfixed;
  int *nb;              /* cell*4+d -> neighbour cell or -1 */
} puzzle_t;

#define ALT_MAX 8 /* scans taking turns at most (--scans) */

typedef enum { ORDER_ROW, ORDER_COL, ORDER_SHORT, ORDER_SPIRAL, ORDER_BORDER, ORDER_MCF } order_kind;

typedef struct {
  order_kind order;
  bool mirror;           /* the order mirrored left to right: the scan starts from the top-right corner */
  uint64_t alternate;    /* 0: one scan; else the scan and its mirror take turns of this many placements (alternate.c) */
  uint64_t seed;         /* 0: candidates in piece order */
  uint64_t node_limit;   /* 0: none */
  double time_limit_s;   /* 0: none */
  uint64_t restart_base; /* 0: no restarts; else Luby(i) * base nodes per restart (not when counting or partitioned) */
  bool symmetry;         /* break the board's rotational symmetry (no fixed cells, SAT/UNSAT only) */
  int corner;            /* with symmetry: pin the corner-th unique corner piece (modulo their number; default 0) */
  int nscans;            /* with alternate: the scans taking turns, each a corner and a direction (0: this and its mirror) */
  int scan_corner[ALT_MAX];
  bool scan_mirror[ALT_MAX];
  bool count;            /* go on after a solution (count them) */
  uint64_t solution_limit; /* with count: stop after this many (0: all) */
  bool print_solutions;  /* with count: print every solution */
  int part_k, part_n;    /* explore only subtrees k mod n at the partition depth (n = 1: all) */
  int part_depth;        /* -1: chosen automatically (and with part_n = 1: no partition) */
  uint64_t part_from;    /* skip the subtrees numbered below this (an earlier search of the same part exhausted them) */
  const uint32_t *resume_from; /* go on exactly where a search stopped (its c resume-from): at depth d, the first time
                                  there, skip the candidates ranked below resume_from[d] (NULL: from the start) */
  int resume_len;
  double progress_s;     /* progress line period (0: none) */
  bool best;             /* report the deepest partial board (c best + b lines) */
  int estimate_probes;   /* before searching, estimate the tree's size with this many random probes (0: no) */
  bool score;            /* score mode (score.c): complete boards with the fewest mismatched inner edges */
  int score_breaks;      /* score mode: the break budget to start from (-1: every inner edge) */
  double score_from;     /* score mode: breaks allowed from this fraction of the scan order on */
  double score_ramp;     /* score mode: the ramp's exponent P (breaks allowed at the fraction f of it: B * f^P) */
  bool score_any;        /* score mode: a placement may mismatch on both keyed sides (a scan of the rim list) */
  bool lns;              /* score mode: after lns_after_s of branch and bound, neighbourhood search (lns.c) */
  double lns_after_s;
  const char *bound_file; /* score mode: a file holding a break bound that may tighten while the search runs (NULL: none) */
  uint64_t restart_skip; /* score mode: placements of the Luby schedule already searched (a search that goes on) */
  bool quiet;
  bool scan_loop;        /* the bucket-scan inner loop instead of bit sets (--loop scan; for comparisons) */
} options_t;

typedef enum { END_EXHAUSTED, END_SOLUTION_LIMIT, END_NODE_LIMIT, END_TIME_LIMIT, END_STOPPED } end_kind;

typedef struct {
  end_kind end;
  uint64_t nodes;
  uint64_t solutions;
  uint64_t restarts;
  int max_depth;         /* deepest position reached (placements beyond the fixed ones) */
  int positions;         /* cells to fill */
  double seconds;
  int part_depth;        /* the partition depth used, or -1 */
  bool has_part_next;    /* stopped by a limit in a partition: part_next says how far it got */
  uint64_t part_next;    /* every subtree of the part numbered below this is exhausted */
  uint32_t *resume_buf;  /* caller's (cells + 1)-sized buffer: where a search stopped by a limit goes on (--resume-from) */
  int resume_len;        /* its length (0: not stopped by a limit, or not a resumable search) */
  int *board_piece_buf;  /* caller's cells-sized buffers: the first solution */
  int *board_rot_buf;
  int best_score;        /* score mode: the best complete board's matched inner edges (-1: none) */
  int max_score;         /* score mode: the board's inner edges */
} result_t;

/* puzzle.c */
const char *puzzle_read(puzzle_t *p, const char *text);
const char *puzzle_check_fixed(const puzzle_t *p);
/* The colour that `piece` turned by `rot` quarter turns shows on side d (0 N, 1 E, 2 S, 3 W). */
static inline int shown_colour(const puzzle_t *p, int piece, int rot, int d) { return p->edges[piece][(d - rot + 8) & 3]; }
/* Fills e with the colours piece q shows turned by rot; true when no smaller turn shows the same four and, on a
 * bounded puzzle, grey lies exactly on the rim sides `rim` (bit d: side d faces the rim). */
bool distinct_fitting(const puzzle_t *p, int q, int rot, int rim, uint8_t e[4]);
void puzzle_classes(puzzle_t *p);
int cell_rim(const puzzle_t *p, int cell);
/* What the fixed cells leave: copies left per class (`avail`), the fixed cells' placed colours (`colour`, cell*4+d),
 * and, returned, each class's pieces that are not fixed, in piece order (caller frees). */
int **puzzle_fixed_state(const puzzle_t *p, int *avail, uint8_t *colour);

/* search.c */
void engine_solve(const puzzle_t *p, const options_t *o, result_t *r);
void engine_make_order(const puzzle_t *p, order_kind kind, int *out);

/* score.c */
void engine_score(const puzzle_t *p, const options_t *o, result_t *r);
extern volatile int engine_stop_requested;

/* lns.c: improves a complete board (piece and rot per cell) by large neighbourhood search until a limit, a stop or a
 * perfect board, printing each board better than it; `nodes` goes on counting. Returns an end_kind and sets
 * r->best_score (and, for a perfect board, r's board buffers). */
int lns_run(const puzzle_t *p, const options_t *o, const int *piece, const int *rot, uint64_t *nodes,
            const struct timespec *t0, result_t *r);

#endif
