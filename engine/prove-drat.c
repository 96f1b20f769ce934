/*
 * cubist-prove's binary DRAT writer (the --proof path of engine/prove.c): lemmas and deletions of the clauses
 * (-p1 ... -pd [-extra]) over the search path, buffered in 1 MiB and written in drat-trim's binary format.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "prove.h"

static FILE *proof = NULL;
static unsigned char *obuf;
static size_t olen = 0;
#define OBUF (1u << 20)

int drat_open(const char *path) {
  obuf = malloc(OBUF);
  if (!obuf) bad_input("out of memory");
  if (!path) return 0;
  proof = fopen(path, "wb");
  if (!proof) { fprintf(stderr, "cubist-prove: %s: %s\n", path, strerror(errno)); return 1; }
  return 0;
}

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

void drat_clause(char op, const int *path, int n, int extra) {
  if (!proof) return;
  if (olen + 8u * (unsigned)(n + 2) > OBUF) flush_proof();
  obuf[olen++] = (unsigned char)op;
  for (int i = 0; i < n; i++) put_lit(-path[i]);
  if (extra) put_lit(-extra);
  obuf[olen++] = 0;
}

int drat_close(void) {
  flush_proof();
  if (proof && fclose(proof) != 0) { fprintf(stderr, "cubist-prove: closing the proof: %s\n", strerror(errno)); return 1; }
  return 0;
}
