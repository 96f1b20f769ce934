/*
 * What cubist-prove's parts share: the placement table read from stdin (engine/prove-input.c), the limits, and the
 * hinted-proof search over the cube's formula (engine/prove-lrat.c, with the propagation of engine/prove-cnf.c).
 */
#ifndef CUBIST_PROVE_H
#define CUBIST_PROVE_H

#include <stdint.h>
#include <signal.h>

#define MAX_SIDE 64
#define MAX_CELLS (MAX_SIDE * MAX_SIDE)

typedef struct {
  int cell, unit, lit;
  int side[4]; /* N E S W colour, -1 where the side has no inner diamond */
} Placement;

/* The table: placements of cell c are pl[cell_pl[cell_start[c] .. cell_start[c+1])]. */
extern int rows, cols, cells, units, count;
extern Placement *pl;
extern int *cell_start, *cell_pl;
/* Copies of each unit not yet placed. */
extern int *left;

/* Reads the table from stdin (engine/prove-input.c); exits 1 naming the line on bad input. */
void read_problem(void);
/* Reads a line of exactly n integers from stdin (comments and blank lines skipped). */
void read_ints(long *out, int n);
/* Names the input line last read and `what` went wrong on stderr, then exits 1. */
void bad_input(const char *what);

extern volatile sig_atomic_t stop_requested;
extern uint64_t nodes, lemmas, node_limit;
extern double deadline;
double now_s(void);

enum { EXHAUSTED, FOUND, LIMIT };

/* The LRAT proof's hint IDs, and the distinct facts (an implied literal of one assignment) it derives: those its
 * lemmas derive inline (counted once however often) plus its fact lemmas. */
extern uint64_t hint_ids, facts;

/*
 * The search over the formula in `cnf_path` (the cube's formula, exactly as the checker numbers its clauses),
 * writing an LRAT proof to `lrat_path`; `scan` lists every cell in branching order. FOUND fills `at` (the placement
 * index on each cell). A shallower literal gets a fact lemma once `fact_uses` lemmas have derived it (0: never; see
 * engine/prove-lrat.c). Exits 1 with a message on bad input or an I/O error.
 */
int prove_lrat(const char *cnf_path, const char *lrat_path, const int *scan, int *at, int fact_uses);

/* The binary DRAT proof of the --proof path (engine/prove-drat.c): open (no file when path is NULL: lemmas are
 * dropped), add ('a') or delete ('d') the clause (-path[0] ... -path[n-1] [-extra]), close. Open and close return 1
 * after naming an I/O error on stderr; a write error exits 1. */
int drat_open(const char *path);
void drat_clause(char op, const int *path, int n, int extra);
int drat_close(void);

#endif
