/*
 * cubist-prove's input: the placement table on stdin (the format in engine/prove.c's note), every line checked; an
 * error names the line and exits 1.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "prove.h"

static int line_no = 0;
static char line[4096];

void bad_input(const char *what) {
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
void read_ints(long *out, int n) {
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

/* Reads the table into rows, cols, cells, units, count, pl, cell_start, cell_pl and left. */
void read_problem(void) {
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
