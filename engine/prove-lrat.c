/*
 * cubist-prove --cnf CUBE.cnf --lrat FILE: the placement search writing its refutation as an LRAT proof, which
 * lrat-check verifies in time linear in the proof, where drat-trim has to search every lemma's propagation again.
 *
 * The search branches as the DRAT search does (the cells in scan order, each cell's placements in table order), but
 * it propagates on the cube's formula itself (prove-cnf.c): every literal it derives has the clause that made it
 * unit, so every lemma can name the clauses it follows from. A node's subtree is exhausted when propagation under
 * its decisions falsifies a clause; the lemma is then the negated decisions that clause depends on (following the
 * reasons back), and its hints are the reasons on the way, in trail order, ending at the falsified clause: exactly
 * the unit propagation lrat-check replays. Lemmas name only the decisions they need, so a lemma may refute an
 * ancestor too (a backjump). A refuted child's lemma is unit at its parent and applied there (it propagates like a
 * formula clause); once the parent is refuted, its children's lemmas are deleted. Literals the formula fixes before
 * any decision (the hints', the cube's units and what they propagate) are written once as unit lemmas, so deeper
 * lemmas name one clause for each instead of its derivation.
 *
 * A literal implied at a shallower level is needed by many lemmas below it, each of which would derive it again,
 * hint by hint. Once `fact_uses` lemmas have derived such a literal inline (and its derivation takes more than its
 * reason), it gets a fact lemma of its own (engine/prove-facts.c), which the lemmas after cite in one hint; fact
 * lemmas are deleted when the search backtracks past their level. On the hard 7x7 of bench/puzzles the default 10
 * makes the proof a fifth smaller; a fact lemma on every shallower literal's first use makes it larger (its
 * decisions and ID cost more than the hints it spares a literal used a few times: BENCHMARKS.md "Certified UNSAT:
 * leaner LRAT proofs").
 *
 * Proof lines (text LRAT): `ID LIT... 0 HINT... 0` adds a lemma, `ID d ID... 0` deletes lemmas; the last lemma
 * added is the empty clause. IDs go on from the formula's clause count (its clauses are 1..C in file order, the
 * cube's units after the base formula's, as certify/cnf.ts writes them).
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "prove.h"
#include "prove-cnf.h"
#include "prove-lrat.h"

/* ---- a lemma from a falsified clause ------------------------------------------------------------------------ */

static int *seen, stamp = 0;                  /* by variable */
static int *stack, top = 0, stack_cap = 0;
static int *replayed;                         /* by trail position: stamp when that literal is named by a hint */
static int *hint_at;                          /* by trail position: that hint (its reason or its fact lemma) */
static int *hints, *lemma_lits, *dead;
static int *uses;                             /* by trail position: lemmas that derived that literal inline */
static int fact_uses = 10;                    /* see the top of this file; 0: no fact lemmas */
uint64_t hint_ids = 0, facts = 0;

static void push(int lit) {
  if (top == stack_cap) {
    stack_cap = 2 * stack_cap + 1024;
    stack = realloc(stack, (size_t)stack_cap * sizeof *stack);
    if (!stack) { fprintf(stderr, "cubist-prove: out of memory\n"); exit(1); }
  }
  stack[top++] = lit;
}

/*
 * Writes the lemma that clause `confl`, falsified under the current decisions, proves: the negations of the
 * decisions it depends on (following reasons back from its literals), with hints in trail order and `confl` last.
 * A literal with a fact lemma is cited by it (its decisions join the lemma's), and a literal of a shallower level
 * that lemmas have derived `fact_uses` times gets one first (prove-facts.c); the others are derived here, reason by
 * reason.
 */
static int derive(int confl) {
  int nl = 0, nh = 0, n, first = tlen, lvl = cur_level;
  stamp++;
  top = 0;
  const int *c = cnf_clause(confl, &n);
  for (int i = 0; i < n; i++) push(c[i]);
  while (top > 0) {
    int v = VAR(stack[--top]);
    if (seen[v] == stamp) continue;
    seen[v] = stamp;
    if (reason[v] == 0) {
      lemma_lits[nl++] = val[2 * v] > 0 ? 2 * v + 1 : 2 * v;
      continue;
    }
    replayed[tpos[v]] = stamp;
    if (tpos[v] < first) first = tpos[v];
    int id = level[v] > 0 && level[v] < lvl && fact_uses > 0 && uses[tpos[v]] >= fact_uses && fact_worth(v) ? fact_lemma(v) : fact_of(v);
    if (id) {
      hint_at[tpos[v]] = id;
      const int *d = fact_decisions(v, &n);
      for (int i = 0; i < n; i++) {
        if (seen[VAR(d[i])] == stamp) continue;
        seen[VAR(d[i])] = stamp;
        lemma_lits[nl++] = d[i];
      }
      continue;
    }
    hint_at[tpos[v]] = reason[v];
    const int *r = cnf_clause(reason[v], &n);
    for (int i = 0; i < n; i++) if (seen[VAR(r[i])] != stamp) push(r[i]);
  }
  for (int t = first; t < tlen; t++) {
    if (replayed[t] != stamp) continue;
    hints[nh++] = hint_at[t];
    if (hint_at[t] == reason[VAR(trail[t])] && uses[t]++ == 0) facts++;
  }
  hints[nh++] = confl;
  return lrat_lemma(lemma_lits, nl, hints, nh, 1);
}

/* Literals fixed at level 0 from `*done` on become unit lemmas, so later hints name them in one clause each. */
static void commit_units(int *done) {
  for (; *done < tlen; (*done)++) {
    int l = trail[*done], v = VAR(l), n;
    if (level[v] != 0) break;
    const int *r = cnf_clause(reason[v], &n);
    if (n <= 1) continue;
    int nh = 0;
    for (int i = 0; i < n; i++) if (VAR(r[i]) != v) hints[nh++] = reason[VAR(r[i])];
    hints[nh++] = reason[v];
    reason[v] = lrat_lemma(&l, 1, hints, nh, 1);
  }
}

/* ---- the search -------------------------------------------------------------------------------------------- */

static const int *scan;
static int *kids, kid_top = 0; /* live lemmas of refuted children, deepest last */
static int refuted = 0;               /* when a search returns EXHAUSTED: a clause falsified at its level */
static int units_done = 0;

static int placed(int cell) {
  for (int k = cell_start[cell]; k < cell_start[cell + 1]; k++) if (val[LIT_OF(pl[cell_pl[k]].lit)] > 0) return 1;
  return 0;
}

/* Keeps lemma `keep` of the lemmas made since `mark` and deletes the others (`keep` subsumes them under the path). */
static void settle_kids(int mark, int keep) {
  int nd = 0;
  for (int j = mark; j < kid_top; j++) if (kids[j] != keep) dead[nd++] = kids[j];
  lrat_delete(dead, nd);
  kid_top = mark;
  kids[kid_top++] = keep;
}

/* The one unassigned literal of lemma `id`, or -1 when all are false. */
static int open_literal(int id) {
  int n;
  const int *c = cnf_clause(id, &n);
  for (int i = 0; i < n; i++) if (val[c[i]] == 0) return c[i];
  return -1;
}

static int search(int pos) {
  while (pos < cells && placed(scan[pos])) pos++;
  if (pos == cells) return FOUND;
  int cell = scan[pos], lvl = cur_level;
  for (int k = cell_start[cell]; k < cell_start[cell + 1]; k++) {
    int lit = LIT_OF(pl[cell_pl[k]].lit);
    if (val[lit] < 0) continue;
    if (val[lit] > 0) return search(pos + 1); /* the refuted children left one placement, which propagation placed */
    if ((++nodes & 4095) == 0 && (stop_requested || (deadline > 0 && now_s() > deadline))) return LIMIT;
    if (node_limit && nodes > node_limit) return LIMIT;
    int mark = kid_top;
    cnf_decide(lit);
    int confl = cnf_propagate();
    if (!confl) {
      int r = search(pos + 1);
      if (r != EXHAUSTED) return r;
      confl = refuted;
    }
    /* A lemma refuting a deeper node that needs none of the deeper decisions stands for this child as it is. */
    int lemma = confl > cnf_clauses ? confl : derive(confl);
    for (int t = lvl < cur_level ? tlen - 1 : -1; t >= 0 && level[VAR(trail[t])] > lvl; t--) uses[t] = 0;
    cnf_backtrack(lvl);
    facts_backtrack(lvl);
    settle_kids(mark, lemma);
    int u = open_literal(lemma);
    if (u < 0) { refuted = lemma; return EXHAUSTED; }
    cnf_assign(u, lemma);
    confl = cnf_propagate();
    if (lvl == 0) commit_units(&units_done);
    if (confl) { refuted = confl; return EXHAUSTED; }
  }
  fprintf(stderr, "cubist-prove: every placement of cell %d is refuted but the formula propagates no conflict: "
                  "the formula is not the placement table's (no at-least-one clause for the cell?)\n", cell);
  exit(1);
}

int prove_lrat(const char *cnf_path, const char *lrat_path, const int *scan_order, int *at, int uses_for_fact) {
  fact_uses = uses_for_fact;
  cnf_read(cnf_path);
  scan = scan_order;
  for (int i = 0; i < count; i++) if (pl[i].lit > cnf_vars) { fprintf(stderr, "cubist-prove: placement variable %d is not in %s\n", pl[i].lit, cnf_path); exit(1); }
  size_t nv = (size_t)cnf_vars + 2;
  seen = calloc(nv, sizeof *seen);
  replayed = calloc(nv, sizeof *replayed);
  uses = calloc(nv, sizeof *uses);
  hints = malloc(nv * sizeof *hints);
  lemma_lits = malloc(nv * sizeof *lemma_lits);
  kids = malloc(((size_t)count + (size_t)cells + 2) * sizeof *kids);
  dead = malloc(((size_t)count + (size_t)cells + 2) * sizeof *dead);
  hint_at = malloc(nv * sizeof *hint_at);
  if (!seen || !replayed || !uses || !hints || !lemma_lits || !kids || !dead || !hint_at) { fprintf(stderr, "cubist-prove: out of memory\n"); exit(1); }
  facts_init();
  lrat_open(lrat_path);
  int confl = cnf_start(), r = EXHAUSTED;
  if (!confl) {
    commit_units(&units_done);
    r = search(0);
    confl = refuted;
  }
  if (r == EXHAUSTED) {
    int n;
    cnf_clause(confl, &n);
    if (!(confl > cnf_clauses && n == 0)) derive(confl); /* the empty clause, unless a lemma already is */
  } else if (r == FOUND) {
    for (int c = 0; c < cells; c++) {
      at[c] = -1;
      for (int k = cell_start[c]; k < cell_start[c + 1]; k++) if (val[LIT_OF(pl[cell_pl[k]].lit)] > 0) at[c] = cell_pl[k];
    }
  }
  lrat_close();
  return r;
}
