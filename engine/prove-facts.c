/*
 * Fact lemmas of cubist-prove's LRAT proof (see engine/prove-lrat.c). Under decisions p1..pd the search's propagation
 * implies literals; a lemma refuting a node deep below needs some of them, and so do its siblings' and cousins'
 * lemmas. Derived inline, hint by hint, such a literal's derivation is written (and checked) once for every lemma
 * that needs it. A fact lemma (-p... x) derives literal x once: p the decisions x's derivation depends on, its hints
 * that derivation in trail order (citing the fact lemmas of literals that have one) and x's reason last. The lemmas
 * after it cite its one ID for x. It stands while x stays assigned: when the search backtracks past x's level it is
 * deleted, so the checker's clause database stays small.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "prove.h"
#include "prove-cnf.h"
#include "prove-lrat.h"

static int *fid;            /* by variable: its fact lemma's ID, 0 when it has none */
static int *foff, *flen;    /* by variable: its fact lemma's negated decisions, pool[foff .. foff + flen) */
static int *fnext, *lhead;  /* the variables with a fact lemma on each level, linked */
static int top_level = 0;   /* no level above it has a fact lemma */
static int *pool;
static size_t plen = 0, pcap = 0, live = 0; /* pool entries used, allocated, and still belonging to a fact */
static void *need(void *p) {
  if (!p) { fprintf(stderr, "cubist-prove: out of memory\n"); exit(1); }
  return p;
}

static int *fseen, fstamp = 0, *lits, *hints, *dead;
/* A fact lemma's trace: a variable handled (fseen), its hint's trail positions (pos) and hints by position (at). */
static int *stack, stack_cap, *pos, *at;

static inline void push(int lit, int *top) {
  if (*top == stack_cap) stack = need(realloc(stack, (size_t)(stack_cap *= 2) * sizeof *stack));
  stack[(*top)++] = lit;
}


void facts_init(void) {
  size_t nv = (size_t)cnf_vars + 2;
  fid = need(calloc(nv, sizeof *fid));
  foff = need(calloc(nv, sizeof *foff));
  flen = need(calloc(nv, sizeof *flen));
  fnext = need(calloc(nv, sizeof *fnext));
  lhead = need(calloc(nv, sizeof *lhead));
  fseen = need(calloc(nv, sizeof *fseen));
  lits = need(malloc(nv * sizeof *lits));
  hints = need(malloc(nv * sizeof *hints));
  dead = need(malloc(nv * sizeof *dead));
  pos = need(malloc(nv * sizeof *pos));
  at = need(malloc(nv * sizeof *at));
  stack = need(malloc((size_t)(stack_cap = 1 << 16) * sizeof *stack));
  pool = need(malloc((pcap = 1 << 16) * sizeof *pool));
}

int fact_of(int v) { return fid[v]; }

const int *fact_decisions(int v, int *n) {
  *n = flen[v];
  return pool + foff[v];
}

/* Moves the standing facts' decisions to the front of the pool once deleted ones take most of it. */
static void compact(void) {
  int *fresh = need(malloc(pcap * sizeof *fresh));
  size_t at = 0;
  for (int l = 1; l <= cur_level; l++)
    for (int v = lhead[l]; v; v = fnext[v]) {
      memcpy(fresh + at, pool + foff[v], (size_t)flen[v] * sizeof *fresh);
      foff[v] = (int)at;
      at += (size_t)flen[v];
    }
  free(pool);
  pool = fresh;
  plen = at;
}

static void add_decision(int lit, int *nl) {
  if (fseen[VAR(lit)] == fstamp) return;
  fseen[VAR(lit)] = fstamp;
  lits[(*nl)++] = lit;
}

int fact_worth(int v) {
  int n;
  const int *r = cnf_clause(reason[v], &n);
  for (int i = 0; i < n; i++) {
    int w = VAR(r[i]);
    if (w != v && level[w] > 0 && reason[w] != 0 && !fid[w]) return 1;
  }
  return 0;
}

int fact_lemma(int v) {
  if (fid[v]) return fid[v];
  int nl = 0, np = 0, top = 0, n;
  fstamp++;
  fseen[v] = fstamp;
  lits[nl++] = trail[tpos[v]];
  const int *r = cnf_clause(reason[v], &n);
  for (int i = 0; i < n; i++) if (VAR(r[i]) != v) push(r[i], &top);
  while (top > 0) {
    int w = VAR(stack[--top]);
    if (fseen[w] == fstamp) continue;
    if (reason[w] == 0) { add_decision(NEG(trail[tpos[w]]), &nl); continue; }
    fseen[w] = fstamp;
    pos[np++] = tpos[w];
    if (fid[w]) {
      at[tpos[w]] = fid[w];
      for (int k = 0; k < flen[w]; k++) add_decision(pool[foff[w] + k], &nl);
      continue;
    }
    at[tpos[w]] = reason[w];
    r = cnf_clause(reason[w], &n);
    for (int i = 0; i < n; i++) if (fseen[VAR(r[i])] != fstamp) push(r[i], &top);
  }
  /* The hints in trail order (a short list: insertion sort), the reason last. */
  for (int i = 1; i < np; i++) {
    int t = pos[i], j = i;
    for (; j > 0 && pos[j - 1] > t; j--) pos[j] = pos[j - 1];
    pos[j] = t;
  }
  for (int i = 0; i < np; i++) hints[i] = at[pos[i]];
  hints[np] = reason[v];
  int id = lrat_lemma(lits, nl, hints, np + 1, 0);
  facts++;
  if (plen + (size_t)nl > pcap) pool = need(realloc(pool, (pcap = 2 * pcap + (size_t)nl) * sizeof *pool));
  memcpy(pool + plen, lits + 1, (size_t)(nl - 1) * sizeof *pool);
  foff[v] = (int)plen;
  flen[v] = nl - 1;
  plen += (size_t)(nl - 1);
  live += (size_t)(nl - 1);
  fid[v] = id;
  fnext[v] = lhead[level[v]];
  lhead[level[v]] = v;
  if (level[v] > top_level) top_level = level[v];
  return id;
}

void facts_backtrack(int to_level) {
  int nd = 0;
  for (int l = to_level + 1; l <= top_level; l++) {
    for (int v = lhead[l]; v; v = fnext[v]) {
      dead[nd++] = fid[v];
      fid[v] = 0;
      live -= (size_t)flen[v];
    }
    lhead[l] = 0;
  }
  if (top_level > to_level) top_level = to_level;
  lrat_delete(dead, nd);
  if (live == 0) plen = 0;
  else if (plen > 4 * live + (1 << 16)) compact();
}
