/*
 * The boards the search reports: each solution (kept for the caller, printed with --print) and the deepest partial
 * board (--best), both from the current path's candidates. See search.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "engine.h"
#include "search.h"

void search_on_solution(ctx_t *x) {
  const puzzle_t *p = x->p;
  int *cursor = calloc((size_t)p->nclasses, sizeof(int));
  int *bp = x->board_piece, *br = x->board_rot;
  bool keep = x->solutions == 1 && bp;
  bool print = x->o->print_solutions;
  if (!keep && !print) { free(cursor); return; }
  int *piece = malloc(sizeof(int) * (size_t)p->cells), *rot = malloc(sizeof(int) * (size_t)p->cells);
  for (int cell = 0; cell < p->cells; cell++) { piece[cell] = p->fixed_piece[cell]; rot[cell] = p->fixed_rot[cell]; }
  for (int i = 0; i < x->n; i++) {
    const cand_t *c = search_chosen_at(x, i);
    int q = x->free_pieces[c->cls][cursor[c->cls]++];
    piece[x->cell[i]] = q;
    rot[x->cell[i]] = (c->rot - p->piece_shift[q] + 4) & 3;
  }
  if (keep) { memcpy(bp, piece, sizeof(int) * (size_t)p->cells); memcpy(br, rot, sizeof(int) * (size_t)p->cells); }
  if (print) {
    printf("v");
    for (int cell = 0; cell < p->cells; cell++) printf(" %d %d %d", cell, piece[cell], rot[cell]);
    printf("\n");
    fflush(stdout);
  }
  free(piece); free(rot); free(cursor);
}

/* The deepest partial board (fixed cells and the first max_depth positions), when deeper than last printed:
 * `c best placed=P of=C nodes=N seconds=T`, then a `b` line of CELL PIECE ROT triples for the placed cells. */
void search_print_best(ctx_t *x) {
  const puzzle_t *p = x->p;
  if (!x->best || x->max_depth <= x->best_printed) return;
  int *cursor = calloc((size_t)p->nclasses, sizeof(int));
  int *piece = malloc(sizeof(int) * (size_t)p->cells), *rot = malloc(sizeof(int) * (size_t)p->cells);
  for (int cell = 0; cell < p->cells; cell++) { piece[cell] = p->fixed_piece[cell]; rot[cell] = p->fixed_rot[cell]; }
  for (int i = 0; i < x->max_depth; i++) {
    const cand_t *c = &x->best[i];
    int q = x->free_pieces[c->cls][cursor[c->cls]++];
    piece[x->best_cell[i]] = q;
    rot[x->best_cell[i]] = (c->rot - p->piece_shift[q] + 4) & 3;
  }
  printf("c best placed=%d of=%d nodes=%llu seconds=%.3f\nb", p->nfixed + x->max_depth, p->cells,
         (unsigned long long)x->nodes, search_elapsed(x));
  for (int cell = 0; cell < p->cells; cell++) if (piece[cell] >= 0) printf(" %d %d %d", cell, piece[cell], rot[cell]);
  printf("\n");
  x->best_printed = x->max_depth;
  free(piece); free(rot); free(cursor);
}
