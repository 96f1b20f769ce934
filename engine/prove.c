/*
 * cubist-prove: a placement search that writes its refutation as a DRAT proof.
 *
 * Certified runs (docs/operations.md "Certificates") need a proof for every refuted cube, checked by drat-trim
 * against the cube's formula (the cubist-placement base formula plus the cube's units). Kissat writes one, but on
 * near-unique boards it needs minutes where a backtracker needs milliseconds. This program is that backtracker,
 * working on the encoding's own placements (the worker writes them from core/encode/placement-table.ts), so that
 * every node of its search tree is a clause drat-trim can check by unit propagation alone:
 *
 *   after the subtree below the placements P = p1..pd is exhausted, the lemma (-p1 ... -pd) is added.
 *
 * Its check assumes P and propagates: each child's lemma (-p1 ... -pd -c) falsifies the child c; every placement
 * of the next cell that the search did not try was dropped by steps the formula propagates too (a colour clash
 * with a placed neighbour: p -> y(k,c), at most one colour per diamond; a unit whose copies are all placed: at most
 * m cells per unit; with the support clauses, a colour no placement of the neighbour can show); so no placement of
 * the cell is left and its at-least-one clause is falsified (or propagation fails earlier). The root's lemma is the empty clause. Cube and hint placements arrive as true
 * literals: they are unit clauses of the cube's formula, so lemmas never name them. After a node's lemma its
 * children's lemmas are deleted (it subsumes them), which keeps drat-trim's clause database small.
 *
 * The search propagates as the formula does (see "propagation" below): only live placements are tried, and a
 * refuted child is dropped at its parent, which may refute the parent before its other children. With --support
 * (the formula has the encoding's support clauses, its default) that includes arc consistency on the diamonds'
 * colours: on the hard 7x7 of bench/puzzles 0.68 M nodes instead of 8.3 M, a 35 MB proof instead of 620 MB.
 *
 * Input (stdin, every line checked; an error names the line):
 *   cubist-prove 1
 *   ROWS COLS UNITS PLACEMENTS
 *   COPIES...                        UNITS numbers: the copies of each unit (identical pieces merged)
 *   CELL UNIT LIT N E S W            PLACEMENTS lines: LIT is the placement's variable, colours -1 on the rim
 *   F                                then F lines LIT: true literals (hints, the cube); a listed placement is fixed
 *
 * Options: --proof FILE (binary DRAT; without it no proof is written), --support (see above), --order row|col|short
 * (default short: lines along the board's shorter side), --time-ms N, --nodes N. With --cnf CUBE.cnf --lrat FILE
 * instead of --proof, the search propagates on the cube's formula itself and writes an LRAT proof for lrat-check
 * (engine/prove-lrat.c, the certified path); the true literals are then the formula's unit clauses. --fact-uses N
 * (default 10, 0 for none): a shallower literal derived by N lemmas gets a fact lemma of its own (prove-lrat.c).
 * Output: `s UNSATISFIABLE` (the proof is complete), `s SATISFIABLE` and `v LIT...` (a board's placement literals),
 * or `s UNKNOWN` (a limit or a stop), then `c nodes N`, `c lemmas N`, `c seconds S`; with --lrat also `c hints N`
 * (the hint IDs written) and `c facts N` (the distinct facts the proof derives: see engine/prove.h).
 * Exit codes: 20, 10, 0 as above; 1 bad input or an I/O error; 2 usage.
 */
#define _POSIX_C_SOURCE 200809L
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "prove.h"

int rows, cols, cells, units, count;
Placement *pl;
int *cell_start;  /* placements of cell c: cell_pl[cell_start[c] .. cell_start[c+1]) */
int *cell_pl;
int *left;               /* copies of each unit not yet placed (read_problem sets each unit's copies) */
static int at[MAX_CELLS]; /* placement index on each cell, -1 when empty */
static int scan[MAX_CELLS], free_cells;

volatile sig_atomic_t stop_requested = 0;
static void on_signal(int sig) { (void)sig; stop_requested = 1; }

uint64_t nodes = 0, lemmas = 0, node_limit = 0;
double deadline = 0;
static struct timespec t_start;

double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)(t.tv_sec - t_start.tv_sec) + (double)(t.tv_nsec - t_start.tv_nsec) * 1e-9;
}

/* ---- propagation -------------------------------------------------------------------------------------------
 *
 * The search keeps, for every cell, the placements still alive: those unit propagation on the formula has not
 * falsified, as far as this program follows it. It follows only steps the formula's clauses make by propagation,
 * so everything it concludes, drat-trim concludes too:
 * - a placed cell: its other placements go (they show another colour on some diamond, and a diamond has one), and
 *   so do its neighbours' placements that show another colour on a shared diamond;
 * - a unit whose copies are all placed: its placements on other cells go (at most m cells per unit);
 * - with --support (the formula has the support clauses): a colour that no live placement of a cell shows on a side
 *   is gone from that diamond, so the neighbour's placements showing it there go too (arc consistency);
 * - a cell with no live placement, or a unit with none on any cell, is a conflict (at least one per cell, per unit).
 * Removals are undone from a trail. */

static int support = 0;
static int ncol = 1;             /* colours 0 .. ncol-1 */
static unsigned char *alive;
static int *dom;                 /* live placements per cell */
static int *ucount;              /* live placements per unit, on any cell */
static int *sup;                 /* live placements of cell c showing colour col on side d: [(c * 4 + d) * ncol + col] */
static int *unit_start, *unit_pl; /* placements of each unit */
static int *side_start, *side_pl; /* placements of cell c showing colour col on side d, indexed like sup */
static int *trail, tlen = 0;
static int *events, elen = 0;     /* (c * 4 + d) * ncol + col whose support count fell to 0 */
static int conflict = 0;

static const int DR[4] = { -1, 0, 1, 0 }, DC[4] = { 0, 1, 0, -1 };

static inline int neighbour(int cell, int d) {
  int r = cell / cols + DR[d], c = cell % cols + DC[d];
  return r < 0 || r >= rows || c < 0 || c >= cols ? -1 : r * cols + c;
}

static void drop(int i) {
  if (!alive[i]) return;
  const Placement *p = &pl[i];
  alive[i] = 0;
  trail[tlen++] = i;
  if (--dom[p->cell] == 0) conflict = 1;
  if (--ucount[p->unit] == 0) conflict = 1;
  for (int d = 0; d < 4; d++) {
    if (p->side[d] < 0) continue;
    int e = (p->cell * 4 + d) * ncol + p->side[d];
    if (--sup[e] == 0 && support) events[elen++] = e;
  }
}

static void propagate(void) {
  while (elen > 0 && !conflict) {
    int e = events[--elen];
    int col = e % ncol, d = (e / ncol) & 3, cell = e / ncol / 4;
    int n = neighbour(cell, d), od = (d + 2) & 3;
    if (n < 0) continue;
    int f = (n * 4 + od) * ncol + col;
    for (int k = side_start[f]; k < side_start[f + 1] && !conflict; k++) drop(side_pl[k]);
  }
  elen = 0;
}

/* Puts placement i on its cell and propagates; `conflict` tells whether that failed. */
static void place(int i) {
  const Placement *p = &pl[i];
  at[p->cell] = i;
  left[p->unit]--;
  for (int k = cell_start[p->cell]; k < cell_start[p->cell + 1]; k++) if (cell_pl[k] != i) drop(cell_pl[k]);
  /* Its colours are the diamonds' now: a neighbour's placements showing another colour there go (with --support the
   * events of the colours just lost do that). */
  for (int d = 0; d < 4 && !conflict && !support; d++) {
    int n = neighbour(p->cell, d), od = (d + 2) & 3;
    if (n < 0 || p->side[d] < 0) continue;
    for (int k = cell_start[n]; k < cell_start[n + 1]; k++) {
      int q = cell_pl[k];
      if (alive[q] && pl[q].side[od] != p->side[d]) drop(q);
    }
  }
  if (left[p->unit] == 0) {
    for (int k = unit_start[p->unit]; k < unit_start[p->unit + 1]; k++) {
      int j = unit_pl[k];
      if (at[pl[j].cell] != j) drop(j);
    }
  }
  if (!alive[i]) conflict = 1;
  propagate();
}

static void undo(int mark) {
  while (tlen > mark) {
    int i = trail[--tlen];
    const Placement *p = &pl[i];
    alive[i] = 1;
    dom[p->cell]++;
    ucount[p->unit]++;
    for (int d = 0; d < 4; d++) if (p->side[d] >= 0) sup[(p->cell * 4 + d) * ncol + p->side[d]]++;
  }
  conflict = 0;
  elen = 0;
}

static void init_state(void) {
  for (int i = 0; i < count; i++) for (int d = 0; d < 4; d++) if (pl[i].side[d] + 1 > ncol) ncol = pl[i].side[d] + 1;
  alive = malloc((size_t)count + 1);
  dom = calloc((size_t)cells, sizeof *dom);
  ucount = calloc((size_t)units, sizeof *ucount);
  sup = calloc((size_t)cells * 4 * (size_t)ncol, sizeof *sup);
  unit_start = calloc((size_t)units + 1, sizeof *unit_start);
  unit_pl = malloc(((size_t)count + 1) * sizeof *unit_pl);
  trail = malloc(((size_t)count + 1) * sizeof *trail);
  events = malloc((size_t)cells * 4 * (size_t)ncol * sizeof *events + sizeof *events);
  if (!alive || !dom || !ucount || !sup || !unit_start || !unit_pl || !trail || !events) bad_input("out of memory");
  for (int i = 0; i < count; i++) {
    const Placement *p = &pl[i];
    alive[i] = 1;
    dom[p->cell]++;
    ucount[p->unit]++;
    unit_start[p->unit + 1]++;
    for (int d = 0; d < 4; d++) if (p->side[d] >= 0) sup[(p->cell * 4 + d) * ncol + p->side[d]]++;
  }
  for (int u = 0; u < units; u++) unit_start[u + 1] += unit_start[u];
  size_t nside = (size_t)cells * 4 * (size_t)ncol;
  side_start = calloc(nside + 1, sizeof *side_start);
  side_pl = malloc(4 * ((size_t)count + 1) * sizeof *side_pl);
  int *fill = calloc(nside > (size_t)units ? nside : (size_t)units, sizeof *fill);
  if (!side_start || !side_pl || !fill) bad_input("out of memory");
  for (int i = 0; i < count; i++) unit_pl[unit_start[pl[i].unit] + fill[pl[i].unit]++] = i;
  for (int i = 0; i < count; i++) for (int d = 0; d < 4; d++) if (pl[i].side[d] >= 0) side_start[(pl[i].cell * 4 + d) * ncol + pl[i].side[d] + 1]++;
  for (size_t e = 0; e < nside; e++) side_start[e + 1] += side_start[e];
  memset(fill, 0, (nside > (size_t)units ? nside : (size_t)units) * sizeof *fill);
  for (int i = 0; i < count; i++) {
    for (int d = 0; d < 4; d++) {
      if (pl[i].side[d] < 0) continue;
      int e = (pl[i].cell * 4 + d) * ncol + pl[i].side[d];
      side_pl[side_start[e] + fill[e]++] = i;
    }
  }
  free(fill);
  /* What propagation concludes before any placement: cells and units without placements, colours without support. */
  for (int c = 0; c < cells; c++) if (dom[c] == 0) conflict = 1;
  for (int u = 0; u < units; u++) if (ucount[u] == 0) conflict = 1;
  if (support) {
    for (int c = 0; c < cells; c++)
      for (int d = 0; d < 4; d++)
        for (int col = 0; col < ncol; col++)
          if (sup[(c * 4 + d) * ncol + col] == 0) events[elen++] = (c * 4 + d) * ncol + col;
  }
  propagate();
}

/* ---- the search ----------------------------------------------------------------------------------------- */

static int path[MAX_CELLS];
/* The last placement of each refuted child whose lemma stands (deleted once its parent's lemma is added). */
static int *kids;
static int kid_top = 0;

/*
 * Searches the free cells from scan position `depth` on, the cells before it placed (the caller undoes what this
 * call leaves on the trail). Every child refuted adds its lemma and deletes its own children's (kids[sub..]), then
 * stands on the stack itself until the caller's lemma deletes it in turn. A refuted child is then gone at this
 * level too (its lemma is a unit under the path), which propagates and may refute this node before its other
 * children: drat-trim's propagation does the same with the lemmas it has.
 */
static int search(int depth) {
  if (depth == free_cells) return FOUND;
  int cell = scan[depth];
  for (int k = cell_start[cell]; k < cell_start[cell + 1]; k++) {
    int i = cell_pl[k];
    if (!alive[i]) continue;
    if ((++nodes & 4095) == 0 && (stop_requested || (deadline > 0 && now_s() > deadline))) return LIMIT;
    if (node_limit && nodes > node_limit) return LIMIT;
    int mark = tlen;
    path[depth] = pl[i].lit;
    place(i);
    int sub = kid_top;
    if (!conflict) {
      int r = search(depth + 1);
      if (r != EXHAUSTED) return r;
    }
    undo(mark);
    at[cell] = -1;
    left[pl[i].unit]++;
    drat_clause('a', path, depth + 1, 0);
    lemmas++;
    for (int j = sub; j < kid_top; j++) drat_clause('d', path, depth + 1, kids[j]);
    kid_top = sub;
    kids[kid_top++] = pl[i].lit;
    drop(i);
    propagate();
    if (conflict) break;
  }
  return EXHAUSTED;
}

/* ---- main ---------------------------------------------------------------------------------------------- */

/* The scan: every cell, along lines of the shorter side (or as asked); `only_free` skips the placed ones. */
static int scan_cells(const char *order, int only_free) {
  int n = 0;
  int by_col = !strcmp(order, "col") || (!strcmp(order, "short") && rows < cols);
  for (int a = 0; a < (by_col ? cols : rows); a++)
    for (int b = 0; b < (by_col ? rows : cols); b++) {
      int c = by_col ? b * cols + a : a * cols + b;
      if (!only_free || at[c] < 0) scan[n++] = c;
    }
  return n;
}

/* The answer lines and the exit code. */
static int report(int r) {
  int code;
  if (r == EXHAUSTED) {
    printf("s UNSATISFIABLE\n");
    code = 20;
  } else if (r == FOUND) {
    printf("s SATISFIABLE\nv");
    for (int c = 0; c < cells; c++) printf(" %d", pl[at[c]].lit);
    printf("\n");
    code = 10;
  } else {
    printf("s UNKNOWN\n");
    code = 0;
  }
  printf("c nodes %llu\nc lemmas %llu\nc seconds %.3f\n", (unsigned long long)nodes, (unsigned long long)lemmas, now_s());
  return code;
}

/* With --cnf: the true literals are the formula's unit clauses (the cube's, the hints'), so the list is only checked. */
static int main_lrat(long nf, const char *order, const char *cnf_path, const char *lrat_path, int fact_uses) {
  int code;
  for (long f = 0; f < nf; f++) {
    long v[1];
    read_ints(v, 1);
    if (v[0] == 0 || v[0] > INT32_MAX / 2 || v[0] < -(INT32_MAX / 2)) bad_input("literal out of range");
  }
  scan_cells(order, 0);
  code = report(prove_lrat(cnf_path, lrat_path, scan, at, fact_uses));
  printf("c hints %llu\nc facts %llu\n", (unsigned long long)hint_ids, (unsigned long long)facts);
  return code;
}

static void usage(FILE *to, int code) {
  fprintf(to, "usage: cubist-prove [--proof FILE] [--support] [--order row|col|short] [--time-ms N] [--nodes N] < problem\n"
              "       cubist-prove --cnf CUBE.cnf --lrat FILE [--fact-uses N] [--order row|col|short] [--time-ms N] [--nodes N] < problem\n"
              "A placement search that writes its refutation as a binary DRAT proof, or with --cnf as an LRAT proof\n"
              "for lrat-check against CUBE.cnf (see the top of engine/prove.c and engine/prove-lrat.c).\n"
              "Exit codes: 20 refuted, 10 a board, 0 unknown, 1 bad input, 2 usage.\n");
  exit(code);
}

int main(int argc, char **argv) {
  const char *proof_path = NULL, *order = "short", *cnf_path = NULL, *lrat_path = NULL;
  long time_ms = 0, fact_uses = 10;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--proof") && i + 1 < argc) proof_path = argv[++i];
    else if (!strcmp(argv[i], "--order") && i + 1 < argc) order = argv[++i];
    else if (!strcmp(argv[i], "--cnf") && i + 1 < argc) cnf_path = argv[++i];
    else if (!strcmp(argv[i], "--lrat") && i + 1 < argc) lrat_path = argv[++i];
    else if (!strcmp(argv[i], "--time-ms") && i + 1 < argc) time_ms = atol(argv[++i]);
    else if (!strcmp(argv[i], "--nodes") && i + 1 < argc) node_limit = (uint64_t)atoll(argv[++i]);
    else if (!strcmp(argv[i], "--fact-uses") && i + 1 < argc) fact_uses = atol(argv[++i]);
    else if (!strcmp(argv[i], "--support")) support = 1;
    else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) usage(stdout, 0);
    else usage(stderr, 2);
  }
  if (strcmp(order, "row") && strcmp(order, "col") && strcmp(order, "short")) usage(stderr, 2);
  if (!cnf_path != !lrat_path || (lrat_path && proof_path) || fact_uses < 0 || fact_uses > 1000000) usage(stderr, 2);
  clock_gettime(CLOCK_MONOTONIC, &t_start);
  if (time_ms > 0) deadline = (double)time_ms / 1000.0;
  signal(SIGTERM, on_signal);
  signal(SIGINT, on_signal);

  read_problem();
  long nf;
  {
    long v[1];
    read_ints(v, 1);
    nf = v[0];
    if (nf < 0 || nf > 64L * MAX_CELLS) bad_input("the number of true literals is out of range");
  }
  for (int c = 0; c < cells; c++) at[c] = -1;
  if (lrat_path) return main_lrat(nf, order, cnf_path, lrat_path, (int)fact_uses);
  /* The fixed placements (a literal that is no placement variable is implied, or a negation) go on their cells. */
  init_state();
  int maxlit = 0;
  for (int i = 0; i < count; i++) if (pl[i].lit > maxlit) maxlit = pl[i].lit;
  int *by_lit = malloc(((size_t)maxlit + 1) * sizeof *by_lit);
  if (!by_lit) bad_input("out of memory");
  for (int v = 0; v <= maxlit; v++) by_lit[v] = -1;
  for (int i = 0; i < count; i++) by_lit[pl[i].lit] = i;
  for (long f = 0; f < nf; f++) {
    long v[1];
    read_ints(v, 1);
    if (v[0] == 0 || v[0] > INT32_MAX / 2 || v[0] < -(INT32_MAX / 2)) bad_input("literal out of range");
    if (v[0] < 0 || v[0] > maxlit || by_lit[v[0]] < 0 || conflict) continue;
    int i = by_lit[v[0]];
    if (at[pl[i].cell] == i) continue;
    if (at[pl[i].cell] >= 0) conflict = 1;
    else place(i);
  }
  free(by_lit);
  int clash = conflict;

  free_cells = scan_cells(order, 1);
  kids = malloc(((size_t)count + (size_t)cells + 1) * sizeof *kids);
  if (!kids) bad_input("out of memory");
  if (drat_open(proof_path)) return 1;

  int r = clash ? EXHAUSTED : search(0);
  /* The root: every first-cell child is refuted, so the empty clause follows (or the units clash). */
  if (r == EXHAUSTED) {
    drat_clause('a', path, 0, 0);
    lemmas++;
  }
  if (drat_close()) return 1;
  return report(r);
}
