/*
 * Symmetry (--symmetry). The rotations that map the board onto itself (four on a square, the half turn on an oblong
 * board) map solutions to solutions when the puzzle has no hints: the caller's word, so fixed cells are then a
 * cube's placements. It is enough to search the boards whose corner piece c (the first piece with two grey sides
 * that no other piece is identical to; a piece with a copy could stand at two corners at once) lies on one corner of
 * each orbit: the corner the scan starts from on a square (the top-left, or the top-right of a mirrored scan); on an
 * oblong board that corner or the one that ends the scan's first line (the half turn swaps top-left with bottom-right
 * and top-right with bottom-left). c leaves the other corners' tables, and the allowed corner the scan meets last
 * takes c while c is free (the first corner on a square), so no subtree is searched where c has nowhere left to go.
 * With c fixed by the caller nothing changes; with c free and its corners taken, the space is empty.
 *
 * --corner K pins the K-th such piece (piece order, K modulo their number) instead of the first. Each corner piece
 * stands at its own corner of the solution, so pinning another one at the starting corner is the scan of the board
 * turned: another tree (on a square four, one per corner piece; on an oblong two per scan, the half turn's pairs).
 */
#include "engine.h"
#include "search.h"

/* The classes of the corner pieces without a twin, in piece order (at most 4); returns how many. */
static int corner_classes(const puzzle_t *p, int unique[4]) {
  int n = 0;
  for (int i = 0; i < p->npieces && n < 4; i++) {
    int grey = 0;
    for (int d = 0; d < 4; d++) grey += p->edges[i][d] == 0;
    if (grey == 2 && p->class_count[p->piece_class[i]] == 1) unique[n++] = p->piece_class[i];
  }
  return n;
}

int symmetry_corner(const puzzle_t *p, const options_t *o) {
  int unique[4], n = o->symmetry ? corner_classes(p, unique) : 0;
  return n ? o->corner % n : 0;
}

void symmetry_setup(ctx_t *x, const int *order) {
  const puzzle_t *p = x->p;
  int unique[4], nunique = corner_classes(p, unique);
  if (nunique == 0) return;
  int c = unique[x->o->corner % nunique];
  const int NW = 0, NE = p->cols - 1, SW = (p->rows - 1) * p->cols, SE = p->cells - 1;
  /* the corner the scan meets first, and the next one it meets that the half turn does not map onto the first */
  int first = -1, second = -1;
  for (int i = 0; i < p->cells && second < 0; i++) {
    int y = order[i];
    if (y != NW && y != NE && y != SW && y != SE) continue;
    if (first < 0) first = y;
    else if (y != p->cells - 1 - first) second = y;
  }
  int allowed[2] = { first, p->rows == p->cols ? -1 : second };
  const int corners[4] = { NW, NE, SE, SW };
  for (int k = 0; k < 4; k++) if (corners[k] != allowed[0] && corners[k] != allowed[1]) x->excluded[cell_rim(p, corners[k])] = c;
  if (x->avail[c] == 0) return; /* fixed by the caller */
  int force = -1;
  for (int i = 0; i < p->cells; i++) if ((order[i] == allowed[0] || order[i] == allowed[1]) && p->fixed_piece[order[i]] < 0) force = order[i];
  if (force < 0) { x->sym_empty = true; return; }
  for (int i = 0; i < x->n; i++) if (x->cell[i] == force) x->force_depth = i;
  x->force_cls = c;
}
