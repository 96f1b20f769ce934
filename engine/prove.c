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
 * of the next cell that the search did not try shows a colour that clashes with a placed neighbour (the
 * encoding's colour clauses falsify it: p -> y(k,c), at most one colour per diamond) or uses a unit whose copies
 * are all placed (x(u,cell) <-> OR p, at most m cells per unit); so no placement of the cell is left and its
 * at-least-one clause is falsified. The root's lemma is the empty clause. Cube and hint placements arrive as true
 * literals: they are unit clauses of the cube's formula, so lemmas never name them. After a node's lemma its
 * children's lemmas are deleted (it subsumes them), which keeps drat-trim's clause database small. With --support
 * (the formula has the encoding's support clauses, its default) a leaf is left without a lemma when those clauses
 * refute it at its parent by propagation alone: about a third of the lemmas (implied_at_parent).
 *
 * Input (stdin, every line checked; an error names the line):
 *   cubist-prove 1
 *   ROWS COLS UNITS PLACEMENTS
 *   COPIES...                        UNITS numbers: the copies of each unit (identical pieces merged)
 *   CELL UNIT LIT N E S W            PLACEMENTS lines: LIT is the placement's variable, colours -1 on the rim
 *   F                                then F lines LIT: true literals (hints, the cube); a listed placement is fixed
 *
 * Options: --proof FILE (binary DRAT; without it no proof is written), --support (see above), --order row|col|short
 * (default short: lines along the board's shorter side), --time-ms N, --nodes N.
 * Output: `s UNSATISFIABLE` (the proof is complete), `s SATISFIABLE` and `v LIT...` (a board's placement literals),
 * or `s UNKNOWN` (a limit or a stop), then `c nodes N`, `c lemmas N`, `c seconds S`.
 * Exit codes: 20, 10, 0 as above; 1 bad input or an I/O error; 2 usage.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_SIDE 64
#define MAX_CELLS (MAX_SIDE * MAX_SIDE)

typedef struct {
  int cell, unit, lit;
  int side[4]; /* N E S W colour, -1 where the side has no inner diamond */
} Placement;

static int rows, cols, cells, units, count;
static Placement *pl;
static int *cell_start;  /* placements of cell c: cell_order_pl[cell_start[c] .. cell_start[c+1]) */
static int *cell_pl;
static int *left;        /* copies of each unit not yet placed */
static int at[MAX_CELLS]; /* placement index on each cell, -1 when empty */
static int scan[MAX_CELLS], free_cells;

static volatile sig_atomic_t stop_requested = 0;
static void on_signal(int sig) { (void)sig; stop_requested = 1; }

static uint64_t nodes = 0, lemmas = 0, node_limit = 0;
static double deadline = 0;
static struct timespec t_start;

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)(t.tv_sec - t_start.tv_sec) + (double)(t.tv_nsec - t_start.tv_nsec) * 1e-9;
}

/* ---- input --------------------------------------------------------------------------------------------- */

static int line_no = 0;
static char line[4096];

static void bad_input(const char *what) {
  fprintf(stderr, "cubist-prove: stdin line %d: %s\n", line_no, what);
  exit(1);
}

static char *next_line(void) {
  for (;;) {
    if (!fgets(line, sizeof line, stdin)) bad_input("unexpected end of input");
    line_no++;
    char *p = line;
    while (*p == ' ' || *p == '\t') p++;
    if (*p != '\n' && *p != '\0' && *p != '#') return p;
  }
}

/* Reads n integers from one line; the line must hold exactly n. */
static void read_ints(long *out, int n) {
  char *p = next_line(), *end;
  for (int i = 0; i < n; i++) {
    errno = 0;
    out[i] = strtol(p, &end, 10);
    if (end == p || errno != 0) bad_input("expected a number");
    p = end;
  }
  while (*p == ' ' || *p == '\t' || *p == '\r') p++;
  if (*p != '\n' && *p != '\0') bad_input("too many fields");
}

static void read_problem(void) {
  char *p = next_line();
  if (strncmp(p, "cubist-prove 1", 14) != 0) bad_input("expected the header 'cubist-prove 1'");
  long h[4];
  read_ints(h, 4);
  if (h[0] < 1 || h[0] > MAX_SIDE || h[1] < 1 || h[1] > MAX_SIDE) bad_input("rows and cols must be 1..64");
  if (h[2] < 1 || h[2] > MAX_CELLS || h[3] < 0 || h[3] > 4L * MAX_CELLS * MAX_CELLS) bad_input("units or placements out of range");
  rows = (int)h[0], cols = (int)h[1], cells = rows * cols, units = (int)h[2], count = (int)h[3];
  left = calloc((size_t)units, sizeof *left);
  pl = calloc((size_t)count + 1, sizeof *pl);
  cell_start = calloc((size_t)cells + 1, sizeof *cell_start);
  cell_pl = calloc((size_t)count + 1, sizeof *cell_pl);
  if (!left || !pl || !cell_start || !cell_pl) bad_input("out of memory");
  long *copies = calloc((size_t)units, sizeof *copies);
  if (!copies) bad_input("out of memory");
  read_ints(copies, units);
  for (int u = 0; u < units; u++) {
    if (copies[u] < 1 || copies[u] > MAX_CELLS) bad_input("a unit's copies must be 1..4096");
    left[u] = (int)copies[u];
  }
  free(copies);
  for (int i = 0; i < count; i++) {
    long v[7];
    read_ints(v, 7);
    if (v[0] < 0 || v[0] >= cells) bad_input("cell out of range");
    if (v[1] < 0 || v[1] >= units) bad_input("unit out of range");
    if (v[2] < 1 || v[2] > INT32_MAX / 2) bad_input("literal out of range");
    for (int d = 0; d < 4; d++) if (v[3 + d] < -1 || v[3 + d] > 1000000) bad_input("colour out of range");
    pl[i] = (Placement){ (int)v[0], (int)v[1], (int)v[2], { (int)v[3], (int)v[4], (int)v[5], (int)v[6] } };
    cell_start[pl[i].cell + 1]++;
  }
  for (int c = 0; c < cells; c++) cell_start[c + 1] += cell_start[c];
  int *fill = calloc((size_t)cells, sizeof *fill);
  if (!fill) bad_input("out of memory");
  for (int i = 0; i < count; i++) cell_pl[cell_start[pl[i].cell] + fill[pl[i].cell]++] = i;
  free(fill);
}

/* ---- the proof ------------------------------------------------------------------------------------------ */

static FILE *proof = NULL;
static unsigned char *obuf;
static size_t olen = 0;
#define OBUF (1u << 20)

static void flush_proof(void) {
  if (proof && olen > 0 && fwrite(obuf, 1, olen, proof) != olen) {
    fprintf(stderr, "cubist-prove: writing the proof: %s\n", strerror(errno));
    exit(1);
  }
  olen = 0;
}

static inline void put_lit(int lit) {
  unsigned u = lit < 0 ? 2u * (unsigned)(-lit) + 1u : 2u * (unsigned)lit;
  while (u > 127) { obuf[olen++] = (unsigned char)(128 | (u & 127)); u >>= 7; }
  obuf[olen++] = (unsigned char)u;
}

/* 'a' (add) or 'd' (delete) the clause (-path[0] ... -path[n-1] [-extra]). */
static void clause(char op, const int *path, int n, int extra) {
  if (!proof) return;
  if (olen + 8u * (unsigned)(n + 2) > OBUF) flush_proof();
  obuf[olen++] = (unsigned char)op;
  for (int i = 0; i < n; i++) put_lit(-path[i]);
  if (extra) put_lit(-extra);
  obuf[olen++] = 0;
}

/* ---- the search ----------------------------------------------------------------------------------------- */

static int path[MAX_CELLS];
/* The last placement of each refuted child whose lemma stands (deleted once its parent's lemma is added). */
static int *kids;
static int kid_top = 0;

static const int DR[4] = { -1, 0, 1, 0 }, DC[4] = { 0, 1, 0, -1 };

static inline int fits(int i) {
  const Placement *p = &pl[i];
  if (left[p->unit] == 0) return 0;
  int r = p->cell / cols, c = p->cell % cols;
  for (int d = 0; d < 4; d++) {
    if (p->side[d] < 0) continue;
    int rr = r + DR[d], cc = c + DC[d];
    if (rr < 0 || rr >= rows || cc < 0 || cc >= cols) continue;
    int q = at[rr * cols + cc];
    if (q >= 0 && pl[q].side[(d + 2) & 3] != p->side[d]) return 0;
  }
  return 1;
}

enum { EXHAUSTED, FOUND, LIMIT };

/*
 * Searches the free cells from scan position `depth` on. Every child refuted adds its lemma and deletes its own
 * children's (kids[sub..]), then stands on the stack itself until the caller's lemma deletes it in turn.
 */
static int support = 0;
/* The number of candidates the last search() call found at its cell (0: its parent's child was a leaf). */
static int last_tried = 0;

static inline int neighbour(int cell, int d) {
  int r = cell / cols + DR[d], c = cell % cols + DC[d];
  return r < 0 || r >= rows || c < 0 || c >= cols ? -1 : r * cols + c;
}

/*
 * With placement i on its cell and the next cell n (its neighbour through side d) left without a candidate: would unit
 * propagation at i's parent, where i is not placed, already refute i? It does through the support clause of their
 * diamond, (-y(k, col) OR the placements of n showing col there), when each of those fails without i: a clash with
 * another placed neighbour of n, or its unit used up by other placements. Then i needs no lemma of its own.
 */
static int implied_at_parent(int i, int n, int d) {
  int col = pl[i].side[d], od = (d + 2) & 3, x = pl[i].cell;
  if (!support || col < 0) return 0;
  for (int k = cell_start[n]; k < cell_start[n + 1]; k++) {
    const Placement *q = &pl[cell_pl[k]];
    if (q->side[od] != col) continue;
    int clash = 0;
    for (int e = 0; e < 4 && !clash; e++) {
      int m = neighbour(n, e);
      if (m < 0 || m == x || at[m] < 0 || q->side[e] < 0) continue;
      clash = pl[at[m]].side[(e + 2) & 3] != q->side[e];
    }
    if (clash) continue;
    if (left[q->unit] == 0 && q->unit != pl[i].unit) continue;
    return 0;
  }
  return 1;
}

/*
 * Searches the free cells from scan position `depth` on. Every child refuted adds its lemma (unless its parent's
 * propagation implies it) and deletes its own children's (kids[sub..]), then stands on the stack itself until the
 * caller's lemma deletes it in turn.
 */
static int search(int depth) {
  if (depth == free_cells) return FOUND;
  int cell = scan[depth], next = depth + 1 < free_cells ? scan[depth + 1] : -1;
  int tried = 0;
  for (int k = cell_start[cell]; k < cell_start[cell + 1]; k++) {
    int i = cell_pl[k];
    if (!fits(i)) continue;
    tried++;
    if ((++nodes & 4095) == 0 && (stop_requested || (deadline > 0 && now_s() > deadline))) return LIMIT;
    if (node_limit && nodes > node_limit) return LIMIT;
    at[cell] = i;
    left[pl[i].unit]--;
    path[depth] = pl[i].lit;
    int sub = kid_top;
    int r = search(depth + 1);
    if (r != EXHAUSTED) return r;
    int implied = 0;
    if (last_tried == 0 && next >= 0) {
      for (int d = 0; d < 4; d++) if (neighbour(cell, d) == next) implied = implied_at_parent(i, next, d);
    }
    left[pl[i].unit]++;
    at[cell] = -1;
    if (implied) continue; /* a leaf without children: nothing of its own to delete either */
    clause('a', path, depth + 1, 0);
    lemmas++;
    for (int j = sub; j < kid_top; j++) clause('d', path, depth + 1, kids[j]);
    kid_top = sub;
    kids[kid_top++] = pl[i].lit;
  }
  last_tried = tried;
  return EXHAUSTED;
}

/* ---- main ---------------------------------------------------------------------------------------------- */

static void usage(FILE *to, int code) {
  fprintf(to, "usage: cubist-prove [--proof FILE] [--support] [--order row|col|short] [--time-ms N] [--nodes N] < problem\n"
              "A placement search that writes its refutation as a binary DRAT proof (see the top of engine/prove.c).\n"
              "Exit codes: 20 refuted, 10 a board, 0 unknown, 1 bad input, 2 usage.\n");
  exit(code);
}

int main(int argc, char **argv) {
  const char *proof_path = NULL, *order = "short";
  long time_ms = 0;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--proof") && i + 1 < argc) proof_path = argv[++i];
    else if (!strcmp(argv[i], "--order") && i + 1 < argc) order = argv[++i];
    else if (!strcmp(argv[i], "--time-ms") && i + 1 < argc) time_ms = atol(argv[++i]);
    else if (!strcmp(argv[i], "--nodes") && i + 1 < argc) node_limit = (uint64_t)atoll(argv[++i]);
    else if (!strcmp(argv[i], "--support")) support = 1;
    else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) usage(stdout, 0);
    else usage(stderr, 2);
  }
  if (strcmp(order, "row") && strcmp(order, "col") && strcmp(order, "short")) usage(stderr, 2);
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
  /* A literal may name at most one placement per variable; the fixed placements go on their cells. */
  for (int c = 0; c < cells; c++) at[c] = -1;
  int clash = 0;
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
    if (v[0] < 0 || v[0] > maxlit || by_lit[v[0]] < 0) continue; /* not a placement: implied, or a negation */
    int i = by_lit[v[0]];
    if (at[pl[i].cell] == i) continue;
    if (at[pl[i].cell] >= 0 || !fits(i)) { clash = 1; continue; }
    at[pl[i].cell] = i;
    left[pl[i].unit]--;
  }
  free(by_lit);

  /* The scan: free cells along lines of the shorter side (or as asked). */
  int by_col = !strcmp(order, "col") || (!strcmp(order, "short") && rows < cols);
  for (int a = 0; a < (by_col ? cols : rows); a++)
    for (int b = 0; b < (by_col ? rows : cols); b++) {
      int c = by_col ? b * cols + a : a * cols + b;
      if (at[c] < 0) scan[free_cells++] = c;
    }
  kids = malloc(((size_t)count + (size_t)cells + 1) * sizeof *kids);
  obuf = malloc(OBUF);
  if (!kids || !obuf) bad_input("out of memory");
  if (proof_path) {
    proof = fopen(proof_path, "wb");
    if (!proof) { fprintf(stderr, "cubist-prove: %s: %s\n", proof_path, strerror(errno)); return 1; }
  }

  int r = clash ? EXHAUSTED : search(0);
  int code;
  if (r == EXHAUSTED) {
    /* The root: every first-cell child is refuted, so the empty clause follows (or the units clash). */
    clause('a', path, 0, 0);
    lemmas++;
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
  flush_proof();
  if (proof && fclose(proof) != 0) { fprintf(stderr, "cubist-prove: closing the proof: %s\n", strerror(errno)); return 1; }
  printf("c nodes %llu\nc lemmas %llu\nc seconds %.3f\n", (unsigned long long)nodes, (unsigned long long)lemmas, now_s());
  return code;
}
