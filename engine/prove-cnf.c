/*
 * The cube's formula for cubist-prove's LRAT search (see prove-cnf.h): reading DIMACS, and unit propagation with
 * reasons. Binary clauses propagate through implication lists, longer ones through two watched literals (the
 * clauses' literal order is this program's own; their IDs stay the file's). Lemmas the search applies are stored for
 * their literals only (it applies each one where it is made, so they need no watches); fact lemmas only take an ID.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "prove-cnf.h"

int cnf_vars, cnf_clauses;
signed char *val;
int *reason, *level, *tpos;
int *trail, tlen = 0, cur_level = 0;

static int qhead = 0, qbin = 0; /* next trail literal to propagate through longer / binary clauses */
static int *cstart, *clit;            /* clause id: clit[cstart[id] .. cstart[id + 1]) */
static int *bstart, *bother, *bid;    /* binary clauses of literal l: (l or bother[k]), clause bid[k] */
static int **watch, *wlen, *wcap;     /* longer clauses watching literal l: pairs (clause, blocker), wlen in ints */
static int *units, nunits = 0, empty_clause = 0;
static int *lem_off, *lem_len, *lem_pool, nlem = 0, lem_cap = 0; /* by lemma ID - cnf_clauses - 1; -1 when not stored */
static size_t pool_len = 0, pool_cap = 0;

static const char *cnf_name;
static long cnf_line = 1;

static void cnf_fail(const char *what) {
  fprintf(stderr, "cubist-prove: %s line %ld: %s\n", cnf_name, cnf_line, what);
  exit(1);
}

static void *grow(void *p, size_t n, size_t size) {
  void *q = realloc(p, n * size);
  if (!q) cnf_fail("out of memory");
  return q;
}

/* ---- reading -------------------------------------------------------------------------------------------- */

static FILE *in;
static char buf[1 << 16];
static size_t blen = 0, bpos = 0;

static int next_char(void) {
  if (bpos == blen) {
    blen = fread(buf, 1, sizeof buf, in);
    bpos = 0;
    if (blen == 0) return EOF;
  }
  return (unsigned char)buf[bpos++];
}

/* The next integer; comment lines are skipped. Returns 0 at the end of the file with *eof set. */
static long next_int(int *eof) {
  int c = next_char();
  for (;;) {
    while (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
      if (c == '\n') cnf_line++;
      c = next_char();
    }
    if (c != 'c') break;
    while (c != '\n' && c != EOF) c = next_char();
  }
  if (c == EOF) { *eof = 1; return 0; }
  int neg = 0;
  if (c == '-') { neg = 1; c = next_char(); }
  if (c < '0' || c > '9') cnf_fail("expected a literal");
  long v = 0;
  while (c >= '0' && c <= '9') {
    v = v * 10 + (c - '0');
    if (v > 1L << 30) cnf_fail("a literal out of range");
    c = next_char();
  }
  if (c == '\n') cnf_line++;
  else if (c != ' ' && c != '\t' && c != '\r' && c != EOF) cnf_fail("expected a literal");
  *eof = 0;
  return neg ? -v : v;
}

static void read_header(void) {
  char line[256];
  for (;;) {
    if (!fgets(line, sizeof line, in)) cnf_fail("no 'p cnf' header");
    if (line[0] == 'c' || line[0] == '\n') { cnf_line++; continue; }
    if (sscanf(line, "p cnf %d %d", &cnf_vars, &cnf_clauses) != 2 || cnf_vars < 0 || cnf_clauses < 0) cnf_fail("expected 'p cnf VARS CLAUSES'");
    cnf_line++;
    return;
  }
}

/* Adds clause `id` (literal indices, duplicates removed, a tautology kept only for its ID). */
static void add_clause(int id, int *c, int n, int *bcount) {
  int k = 0, taut = 0;
  for (int i = 0; i < n; i++) {
    int dup = 0;
    for (int j = 0; j < k; j++) {
      if (c[j] == c[i]) dup = 1;
      if (c[j] == NEG(c[i])) taut = 1;
    }
    if (!dup) c[k++] = c[i];
  }
  cstart[id + 1] = cstart[id];
  if (taut) return;
  if (k == 0 && !empty_clause) empty_clause = id;
  if (k == 1) units[nunits++] = id;
  if (k == 2) { bcount[c[0]]++; bcount[c[1]]++; }
  memcpy(clit + cstart[id], c, (size_t)k * sizeof *c);
  cstart[id + 1] = cstart[id] + k;
}

/* Clause `id` watches literal l; `blocker`, another of its literals, true means the clause needs no visit. */
static void add_watch(int l, int id, int blocker) {
  if (wlen[l] + 2 > wcap[l]) watch[l] = grow(watch[l], (size_t)(wcap[l] = wcap[l] ? 2 * wcap[l] : 8), sizeof **watch);
  watch[l][wlen[l]++] = id;
  watch[l][wlen[l]++] = blocker;
}

void cnf_read(const char *path) {
  cnf_name = path;
  in = fopen(path, "rb");
  if (!in) { fprintf(stderr, "cubist-prove: %s: %s\n", path, strerror(errno)); exit(1); }
  read_header();
  size_t nlit = 2 * (size_t)cnf_vars + 2, cap = 1 << 20, len = 0;
  cstart = grow(NULL, (size_t)cnf_clauses + 2, sizeof *cstart);
  clit = grow(NULL, cap, sizeof *clit);
  units = grow(NULL, (size_t)cnf_clauses + 1, sizeof *units);
  int *bcount = calloc(nlit, sizeof *bcount), *c = NULL, clen = 0, ccap = 0;
  if (!bcount) cnf_fail("out of memory");
  cstart[1] = 0;
  for (int id = 1; id <= cnf_clauses; id++) {
    clen = 0;
    for (;;) {
      int eof;
      long d = next_int(&eof);
      if (eof) cnf_fail("fewer clauses than the header says");
      if (d == 0) break;
      if (d > cnf_vars || -d > cnf_vars) cnf_fail("a literal beyond the header's variables");
      if (clen == ccap) c = grow(c, (size_t)(ccap = ccap ? 2 * ccap : 64), sizeof *c);
      c[clen++] = LIT_OF((int)d);
    }
    if (len + (size_t)clen > cap) clit = grow(clit, cap = 2 * (cap + (size_t)clen), sizeof *clit);
    add_clause(id, c, clen, bcount);
    len = (size_t)cstart[id + 1];
  }
  int eof;
  next_int(&eof);
  if (!eof) cnf_fail("more clauses than the header says");
  fclose(in);
  free(c);
  /* Implication lists of the binary clauses; watches of the longer ones. */
  bstart = calloc(nlit + 1, sizeof *bstart);
  if (!bstart) cnf_fail("out of memory");
  for (size_t l = 0; l < nlit; l++) bstart[l + 1] = bstart[l] + bcount[l];
  bother = grow(NULL, (size_t)bstart[nlit] + 1, sizeof *bother);
  bid = grow(NULL, (size_t)bstart[nlit] + 1, sizeof *bid);
  memset(bcount, 0, nlit * sizeof *bcount);
  watch = calloc(nlit, sizeof *watch);
  wlen = calloc(nlit, sizeof *wlen);
  wcap = calloc(nlit, sizeof *wcap);
  if (!watch || !wlen || !wcap) cnf_fail("out of memory");
  for (int id = 1; id <= cnf_clauses; id++) {
    int n = cstart[id + 1] - cstart[id], *cl = clit + cstart[id];
    if (n == 2) {
      for (int s = 0; s < 2; s++) {
        int k = bstart[cl[s]] + bcount[cl[s]]++;
        bother[k] = cl[1 - s];
        bid[k] = id;
      }
    } else if (n > 2) {
      for (int s = 0; s < 2; s++) add_watch(cl[s], id, cl[1 - s]);
    }
  }
  free(bcount);
  val = calloc(nlit, sizeof *val);
  reason = calloc((size_t)cnf_vars + 1, sizeof *reason);
  level = calloc((size_t)cnf_vars + 1, sizeof *level);
  tpos = calloc((size_t)cnf_vars + 1, sizeof *tpos);
  trail = grow(NULL, (size_t)cnf_vars + 1, sizeof *trail);
  if (!val || !reason || !level || !tpos) cnf_fail("out of memory");
}

/* ---- propagation ---------------------------------------------------------------------------------------- */

void cnf_assign(int lit, int why) {
  int v = VAR(lit);
  val[lit] = 1;
  val[NEG(lit)] = -1;
  reason[v] = why;
  level[v] = cur_level;
  tpos[v] = tlen;
  trail[tlen++] = lit;
}

void cnf_decide(int lit) {
  cur_level++;
  cnf_assign(lit, 0);
}

int cnf_start(void) {
  if (empty_clause) return empty_clause;
  for (int i = 0; i < nunits; i++) {
    int id = units[i], l = clit[cstart[id]];
    if (val[l] < 0) return id;
    if (val[l] == 0) cnf_assign(l, id);
  }
  return cnf_propagate();
}

/* Binary clauses first, to a fixpoint, before each step through a longer clause: a literal then gets the shortest
 * reason at hand (a colour clash is two binary steps; through the support clauses it is a chain), which keeps the
 * lemmas' hints short. */
int cnf_propagate(void) {
  for (;;) {
    while (qbin < tlen) {
      int f = NEG(trail[qbin++]); /* the literal just made false */
      for (int k = bstart[f]; k < bstart[f + 1]; k++) {
        int o = bother[k];
        if (val[o] > 0) continue;
        if (val[o] < 0) return bid[k];
        cnf_assign(o, bid[k]);
      }
    }
    if (qhead == tlen) return 0;
    int f = NEG(trail[qhead++]);
    int *ws = watch[f], n = wlen[f], j = 0, conflict = 0;
    for (int i = 0; i < n; i += 2) {
      int id = ws[i], blocker = ws[i + 1];
      if (conflict || val[blocker] > 0) { ws[j++] = id; ws[j++] = blocker; continue; }
      int *cl = clit + cstart[id], len = cstart[id + 1] - cstart[id];
      if (cl[0] == f) { cl[0] = cl[1]; cl[1] = f; }
      if (val[cl[0]] > 0) { ws[j++] = id; ws[j++] = cl[0]; continue; }
      int moved = 0;
      for (int k = 2; k < len; k++) {
        if (val[cl[k]] >= 0) {
          int l = cl[k];
          cl[k] = f;
          cl[1] = l;
          add_watch(l, id, cl[0]);
          moved = 1;
          break;
        }
      }
      if (moved) continue;
      ws[j++] = id;
      ws[j++] = cl[0];
      if (val[cl[0]] < 0) conflict = id;
      else cnf_assign(cl[0], id);
    }
    wlen[f] = j;
    if (conflict) return conflict;
  }
}

void cnf_backtrack(int to_level) {
  while (tlen > 0) {
    int l = trail[tlen - 1], v = VAR(l);
    if (level[v] <= to_level) break;
    val[l] = val[NEG(l)] = 0;
    tlen--;
  }
  qhead = qbin = tlen;
  cur_level = to_level;
}

/* ---- clauses and lemmas ----------------------------------------------------------------------------------- */

const int *cnf_clause(int id, int *n) {
  if (id <= cnf_clauses) {
    *n = cstart[id + 1] - cstart[id];
    return clit + cstart[id];
  }
  int k = id - cnf_clauses - 1;
  if (k >= nlem || lem_len[k] < 0) { fprintf(stderr, "cubist-prove: lemma %d has no stored literals\n", id); exit(1); }
  *n = lem_len[k];
  return lem_pool + lem_off[k];
}

int cnf_new_id(void) {
  if (nlem == lem_cap) {
    lem_cap = lem_cap ? 2 * lem_cap : 1 << 16;
    lem_off = grow(lem_off, (size_t)lem_cap, sizeof *lem_off);
    lem_len = grow(lem_len, (size_t)lem_cap, sizeof *lem_len);
  }
  lem_off[nlem] = 0;
  lem_len[nlem] = -1;
  return cnf_clauses + ++nlem;
}

int cnf_add_lemma(const int *lits, int n) {
  int id = cnf_new_id(), k = id - cnf_clauses - 1;
  if (pool_len + (size_t)n > pool_cap) lem_pool = grow(lem_pool, pool_cap = 2 * (pool_cap + (size_t)n) + (1 << 16), sizeof *lem_pool);
  lem_off[k] = (int)pool_len;
  lem_len[k] = n;
  memcpy(lem_pool + pool_len, lits, (size_t)n * sizeof *lits);
  pool_len += (size_t)n;
  return id;
}
