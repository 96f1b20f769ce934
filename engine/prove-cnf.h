/*
 * The cube's formula as cubist-prove's LRAT search sees it (engine/prove-cnf.c): its clauses numbered as the
 * checker numbers them (1 .. cnf_clauses, in file order), the lemmas after them, and unit propagation over all of
 * it with a reason for every implied literal. Literals are indices: 2v for v, 2v+1 for -v.
 */
#ifndef CUBIST_PROVE_CNF_H
#define CUBIST_PROVE_CNF_H

#define LIT_OF(d) ((d) > 0 ? 2 * (d) : -2 * (d) + 1) /* DIMACS -> index */
#define DIMACS(l) (((l) & 1) ? -((l) >> 1) : ((l) >> 1))
#define NEG(l) ((l) ^ 1)
#define VAR(l) ((l) >> 1)

extern int cnf_vars, cnf_clauses;
extern signed char *val;   /* by literal: 1 true, -1 false, 0 unassigned */
extern int *reason;        /* by variable: the clause that implied it, 0 for a decision */
extern int *level, *tpos;  /* by variable: decision level and trail position */
extern int *trail, tlen, cur_level;

/* Reads the DIMACS file (exits 1 with a message naming the line on bad input). */
void cnf_read(const char *path);
/* Assigns the unit clauses and propagates; returns a falsified clause, or 0. */
int cnf_start(void);
void cnf_assign(int lit, int why);
void cnf_decide(int lit);
/* Unit propagation from the last propagated trail position; returns a falsified clause, or 0. */
int cnf_propagate(void);
void cnf_backtrack(int to_level);
/* The literals of clause or lemma `id`. */
const int *cnf_clause(int id, int *n);
/* Stores a lemma's literals under the next ID (after the formula's clauses and the lemmas before it). */
int cnf_add_lemma(const int *lits, int n);
/* The next ID for a lemma whose literals are not stored (cnf_clause exits 1 on it). */
int cnf_new_id(void);

#endif
