/*
 * Reading a problem from its text (docs/engine.md "Input"), grouping identical pieces into classes, and
 * checking the fixed placements against the rim and each other. The input comes from Cubist's own TypeScript
 * side, which validated the puzzle already; this file still trusts nothing: every number is range-checked and a
 * bad input is an error message naming the line, never a crash.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "engine.h"

typedef struct {
  const char *s;
  int line;
  char err[160];
} reader_t;

/* Skips blanks, line ends and comments; counts lines. */
static void skip_blank(reader_t *r) {
  const char *s = r->s;
  for (;;) {
    while (*s == ' ' || *s == '\t' || *s == '\r') s++;
    if (*s == '#') { while (*s && *s != '\n') s++; }
    if (*s == '\n') { r->line++; s++; continue; }
    break;
  }
  r->s = s;
}

/* Length of the token at s (up to 20 characters), for messages that quote it on one line. */
static int token_len(const char *s) {
  int n = (int)strcspn(s, " \t\r\n");
  return n > 20 ? 20 : n;
}

static bool next_int(reader_t *r, long *out, const char *what) {
  skip_blank(r);
  const char *s = r->s;
  if (*s == 0) { snprintf(r->err, sizeof r->err, "line %d: expected %s, found the end of the input", r->line, what); return false; }
  char *end;
  errno = 0;
  long v = strtol(s, &end, 10);
  if (errno == ERANGE) {
    snprintf(r->err, sizeof r->err, "line %d: %s '%.*s' out of range", r->line, what, token_len(s), s);
    return false;
  }
  if (end == s || (*end && *end != ' ' && *end != '\t' && *end != '\n' && *end != '\r')) {
    snprintf(r->err, sizeof r->err, "line %d: expected %s, found '%.*s'", r->line, what, token_len(s), s);
    return false;
  }
  *out = v;
  r->s = end;
  return true;
}

static char err_buf[200];

#define READ(var, what, lo, hi)                                                                             \
  do {                                                                                                      \
    long v_;                                                                                                \
    if (!next_int(&r, &v_, what)) { snprintf(err_buf, sizeof err_buf, "%s", r.err); return err_buf; }      \
    if (v_ < (lo) || v_ > (hi)) {                                                                           \
      snprintf(err_buf, sizeof err_buf, "line %d: %s %ld out of range %ld..%ld", r.line, what, v_, (long)(lo), (long)(hi)); \
      return err_buf;                                                                                       \
    }                                                                                                       \
    var = (int)v_;                                                                                          \
  } while (0)

const char *puzzle_read(puzzle_t *p, const char *text) {
  memset(p, 0, sizeof *p);
  /* The version must be the whole word: "cubist-engine 12" is not version 1 followed by the number 2. */
  if (strncmp(text, "cubist-engine 1", 15) != 0 || (text[15] && !strchr(" \t\r\n", text[15])))
    return "line 1: expected the header 'cubist-engine 1'";
  reader_t r = { text + 15, 1, { 0 } };
  READ(p->rows, "rows", 1, MAX_SIDE);
  READ(p->cols, "cols", 1, MAX_SIDE);
  p->cells = p->rows * p->cols;
  p->npieces = p->cells;
  p->edges = calloc((size_t)p->cells, 4);
  p->fixed_piece = malloc(sizeof(int) * (size_t)p->cells);
  p->fixed_rot = calloc((size_t)p->cells, sizeof(int));
  p->nb = malloc(sizeof(int) * 4 * (size_t)p->cells);
  int maxc = 0;
  for (int i = 0; i < p->cells; i++) {
    for (int d = 0; d < 4; d++) {
      int c;
      READ(c, "colour", 0, MAX_COLOURS - 1);
      p->edges[i][d] = (uint8_t)c;
      if (c == 0) p->bounded = true;
      if (c > maxc) maxc = c;
    }
  }
  p->ncolours = maxc + 1;
  if (p->bounded && (p->rows < 2 || p->cols < 2)) return "a bounded puzzle needs at least 2 rows and 2 columns";
  for (int i = 0; i < p->cells; i++) p->fixed_piece[i] = -1;
  int nfixed;
  READ(nfixed, "number of fixed placements", 0, p->cells);
  bool *used = calloc((size_t)p->npieces, 1);
  for (int i = 0; i < nfixed; i++) {
    int cell, piece, rot;
    READ(cell, "cell", 0, p->cells - 1);
    READ(piece, "piece", 0, p->npieces - 1);
    READ(rot, "rotation", 0, 3);
    if (p->fixed_piece[cell] >= 0) { snprintf(err_buf, sizeof err_buf, "line %d: cell %d is fixed twice", r.line, cell); free(used); return err_buf; }
    if (used[piece]) { snprintf(err_buf, sizeof err_buf, "line %d: piece %d is fixed twice", r.line, piece); free(used); return err_buf; }
    used[piece] = true;
    p->fixed_piece[cell] = piece;
    p->fixed_rot[cell] = rot;
  }
  free(used);
  p->nfixed = nfixed;
  skip_blank(&r);
  if (*r.s) {
    snprintf(err_buf, sizeof err_buf, "line %d: unexpected data after the fixed placements: '%.*s'", r.line, token_len(r.s), r.s);
    return err_buf;
  }
  for (int cell = 0; cell < p->cells; cell++) {
    int row = cell / p->cols, col = cell % p->cols;
    p->nb[cell * 4 + 0] = row > 0 ? cell - p->cols : -1;
    p->nb[cell * 4 + 1] = col < p->cols - 1 ? cell + 1 : -1;
    p->nb[cell * 4 + 2] = row < p->rows - 1 ? cell + p->cols : -1;
    p->nb[cell * 4 + 3] = col > 0 ? cell - 1 : -1;
  }
  return NULL;
}

/* Rim sides of a cell as a bit mask (bit d: side d faces the rim); 0 for unbounded puzzles. */
int cell_rim(const puzzle_t *p, int cell) {
  if (!p->bounded) return 0;
  int m = 0;
  for (int d = 0; d < 4; d++) if (p->nb[cell * 4 + d] < 0) m |= 1 << d;
  return m;
}

bool distinct_fitting(const puzzle_t *p, int q, int rot, int rim, uint8_t e[4]) {
  for (int d = 0; d < 4; d++) e[d] = (uint8_t)shown_colour(p, q, rot, d);
  for (int r2 = 0; r2 < rot; r2++) {
    bool same = true;
    for (int d = 0; d < 4; d++) same = same && shown_colour(p, q, r2, d) == e[d];
    if (same) return false;
  }
  if (p->bounded) for (int d = 0; d < 4; d++) if ((e[d] == 0) != ((rim >> d & 1) != 0)) return false;
  return true;
}

void puzzle_classes(puzzle_t *p) {
  p->piece_class = malloc(sizeof(int) * (size_t)p->npieces);
  p->piece_shift = calloc((size_t)p->npieces, sizeof(int));
  p->class_rep = malloc(sizeof(int) * (size_t)p->npieces);
  p->class_count = calloc((size_t)p->npieces, sizeof(int));
  p->nclasses = 0;
  for (int i = 0; i < p->npieces; i++) {
    p->piece_class[i] = -1;
    for (int c = 0; c < p->nclasses && p->piece_class[i] < 0; c++) {
      int q = p->class_rep[c];
      /* edges[i][j] == edges[q][(j - s) & 3] for all j: piece i is q turned by s */
      for (int s = 0; s < 4; s++) {
        bool same = true;
        for (int j = 0; j < 4 && same; j++) same = p->edges[i][j] == p->edges[q][(j - s + 4) & 3];
        if (same) { p->piece_class[i] = c; p->piece_shift[i] = s; p->class_count[c]++; break; }
      }
    }
    if (p->piece_class[i] < 0) {
      int c = p->nclasses++;
      p->class_rep[c] = i;
      p->class_count[c] = 1;
      p->piece_class[i] = c;
      p->piece_shift[i] = 0;
    }
  }
}

/* NULL when the fixed placements fit the rim and each other; else why not. */
const char *puzzle_check_fixed(const puzzle_t *p) {
  for (int cell = 0; cell < p->cells; cell++) {
    int piece = p->fixed_piece[cell];
    if (piece < 0) continue;
    int rot = p->fixed_rot[cell], rim = cell_rim(p, cell);
    for (int d = 0; d < 4; d++) {
      int c = shown_colour(p, piece, rot, d);
      if (p->bounded && ((c == 0) != ((rim >> d & 1) != 0))) {
        snprintf(err_buf, sizeof err_buf, "fixed piece %d at cell %d does not fit the rim", piece, cell);
        return err_buf;
      }
      int y = p->nb[cell * 4 + d];
      if (y >= 0 && p->fixed_piece[y] >= 0 && shown_colour(p, p->fixed_piece[y], p->fixed_rot[y], d ^ 2) != c) {
        snprintf(err_buf, sizeof err_buf, "fixed pieces at cells %d and %d do not match", cell, y);
        return err_buf;
      }
    }
  }
  return NULL;
}

int **puzzle_fixed_state(const puzzle_t *p, int *avail, uint8_t *colour) {
  int cells = p->cells;
  for (int c = 0; c < p->nclasses; c++) avail[c] = p->class_count[c];
  for (int cell = 0; cell < cells; cell++) {
    int piece = p->fixed_piece[cell];
    if (piece < 0) continue;
    avail[p->piece_class[piece]]--;
    for (int d = 0; d < 4; d++) colour[cell * 4 + d] = (uint8_t)shown_colour(p, piece, p->fixed_rot[cell], d);
  }
  int **free_pieces = calloc((size_t)p->nclasses, sizeof(int *));
  int *fill = calloc((size_t)p->nclasses, sizeof(int));
  bool *fixed = calloc((size_t)p->npieces, 1);
  for (int cell = 0; cell < cells; cell++) if (p->fixed_piece[cell] >= 0) fixed[p->fixed_piece[cell]] = true;
  for (int c = 0; c < p->nclasses; c++) free_pieces[c] = malloc(sizeof(int) * (size_t)p->class_count[c]);
  for (int i = 0; i < p->npieces; i++) if (!fixed[i]) { int c = p->piece_class[i]; free_pieces[c][fill[c]++] = i; }
  free(fill); free(fixed);
  return free_pieces;
}
