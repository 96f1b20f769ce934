/*
 * The LRAT proof of cubist-prove --cnf --lrat: its writer (engine/prove-lrat-write.c) and the per-level fact lemmas
 * (engine/prove-facts.c) that engine/prove-lrat.c's search cites instead of deriving a literal again.
 */
#ifndef CUBIST_PROVE_LRAT_H
#define CUBIST_PROVE_LRAT_H

/* Opens the proof file (exits 1 naming an I/O error); closes it, flushing what is buffered. */
void lrat_open(const char *path);
void lrat_close(void);
/* Writes lemma (lits) with its hints and returns its ID. A stored lemma's literals are kept for cnf_clause (the
 * search applies it); a fact lemma's are not (prove-facts.c keeps them while the fact stands). */
int lrat_lemma(const int *lits, int n, const int *hints, int nh, int store);
/* Deletes lemmas `ids` (nothing when n is 0). */
void lrat_delete(const int *ids, int n);

/* Sizes the fact tables for the formula's variables (after cnf_read). */
void facts_init(void);
/* The fact lemma of variable v (assigned above level 0 by a reason): (-p... x), x its assigned literal and p the
 * decisions its derivation depends on, its hints that derivation (citing fact lemmas where they exist) and the
 * reason last. Written once while v stays assigned. */
int fact_lemma(int v);
/* Whether v's reason has a literal derived in turn (not a decision, not fixed at level 0, without a fact lemma):
 * only then does a fact lemma spare its citers hints. */
int fact_worth(int v);
/* v's fact lemma ID, or 0 when it has none. */
int fact_of(int v);
/* The negated decisions of v's fact lemma (the lemma without x). */
const int *fact_decisions(int v, int *n);
/* Deletes the fact lemmas of literals above `to_level` (call when the search backtracks to it). */
void facts_backtrack(int to_level);

#endif
