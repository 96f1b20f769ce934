/*
 * The text LRAT file of cubist-prove --cnf --lrat (see engine/prove-lrat.c): `ID LIT... 0 HINT... 0` adds a lemma,
 * `ID d ID... 0` deletes lemmas. Lemma IDs go on from the formula's clause count (prove-cnf.c hands them out).
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "prove.h"
#include "prove-cnf.h"
#include "prove-lrat.h"

static FILE *out;
static char *obuf;
static size_t olen = 0;
#define OBUF (1u << 22)

static void flush_out(void) {
  if (olen > 0 && fwrite(obuf, 1, olen, out) != olen) {
    fprintf(stderr, "cubist-prove: writing the proof: %s\n", strerror(errno));
    exit(1);
  }
  olen = 0;
}

/* "00" .. "99": two digits per division. */
static const char DIGITS[] =
  "0001020304050607080910111213141516171819202122232425262728293031323334353637383940414243444546474849"
  "5051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899";

static inline void put_int(long v) {
  char tmp[24];
  int n = 24;
  if (v < 0) { obuf[olen++] = '-'; v = -v; }
  while (v >= 100) {
    int r = (int)(v % 100);
    v /= 100;
    tmp[--n] = DIGITS[2 * r + 1];
    tmp[--n] = DIGITS[2 * r];
  }
  if (v >= 10) {
    tmp[--n] = DIGITS[2 * v + 1];
    tmp[--n] = DIGITS[2 * v];
  } else {
    tmp[--n] = (char)('0' + v);
  }
  memcpy(obuf + olen, tmp + n, (size_t)(24 - n));
  olen += (size_t)(24 - n);
  obuf[olen++] = ' ';
}

/* Flushes unless n more numbers (and a line's end) fit in the buffer. */
static inline void room(size_t n) {
  if (olen + 24u * (n + 3) > OBUF) flush_out();
}

static int last_id = 0;

int lrat_lemma(const int *lits, int n, const int *hints, int nh, int store) {
  int id = store ? cnf_add_lemma(lits, n) : cnf_new_id();
  last_id = id;
  lemmas++;
  hint_ids += (uint64_t)nh;
  room((size_t)(n + nh));
  put_int(id);
  for (int i = 0; i < n; i++) put_int(DIMACS(lits[i]));
  put_int(0);
  for (int i = 0; i < nh; i++) put_int(hints[i]);
  obuf[olen++] = '0';
  obuf[olen++] = '\n';
  return id;
}

void lrat_delete(const int *ids, int n) {
  if (n == 0) return;
  room((size_t)n);
  put_int(last_id);
  obuf[olen++] = 'd';
  obuf[olen++] = ' ';
  for (int i = 0; i < n; i++) put_int(ids[i]);
  obuf[olen++] = '0';
  obuf[olen++] = '\n';
}

void lrat_open(const char *path) {
  obuf = malloc(OBUF);
  if (!obuf) { fprintf(stderr, "cubist-prove: out of memory\n"); exit(1); }
  out = fopen(path, "wb");
  if (!out) { fprintf(stderr, "cubist-prove: %s: %s\n", path, strerror(errno)); exit(1); }
}

void lrat_close(void) {
  flush_out();
  if (fclose(out) != 0) { fprintf(stderr, "cubist-prove: closing the proof: %s\n", strerror(errno)); exit(1); }
}
