/* The static scan orders (--order row|col|short|spiral|border): the cells in the order the search fills them. */
#include <stdbool.h>
#include <stdlib.h>
#include "engine.h"
#include "search.h"

static int ring_order(const puzzle_t *p, int *out, int rings) {
  int n = 0, top = 0, left = 0, bottom = p->rows - 1, right = p->cols - 1;
  for (int ring = 0; ring < rings && top <= bottom && left <= right; ring++, top++, left++, bottom--, right--) {
    for (int c = left; c <= right; c++) out[n++] = top * p->cols + c;
    for (int r = top + 1; r <= bottom; r++) out[n++] = r * p->cols + right;
    if (top < bottom) for (int c = right - 1; c >= left; c--) out[n++] = bottom * p->cols + c;
    if (left < right) for (int r = bottom - 1; r > top; r--) out[n++] = r * p->cols + left;
  }
  return n;
}

void engine_make_order(const puzzle_t *p, order_kind kind, int *out) {
  int n = 0;
  bool by_col = kind == ORDER_COL || ((kind == ORDER_SHORT || kind == ORDER_MCF) && p->cols > p->rows);
  if (kind == ORDER_SPIRAL) { ring_order(p, out, MAX_SIDE); return; }
  bool *seen = calloc((size_t)p->cells, 1);
  if (kind == ORDER_BORDER) {
    n = ring_order(p, out, 1);
    for (int i = 0; i < n; i++) seen[out[i]] = true;
    by_col = p->cols > p->rows;
  }
  if (by_col) {
    for (int c = 0; c < p->cols; c++) for (int r = 0; r < p->rows; r++) if (!seen[r * p->cols + c]) out[n++] = r * p->cols + c;
  } else {
    for (int cell = 0; cell < p->cells; cell++) if (!seen[cell]) out[n++] = cell;
  }
  free(seen);
}
