/**
 * Static cell orders (see `CellOrder` in types.ts). "most-constrained" is dynamic; its static
 * fallback here (row-major) is the tie-break rank it uses.
 */

import { InvalidOptionError } from "../errors.js";
import { cellOrders, type CellOrder } from "./types.js";
import { scanCellOrder } from "./scan-split.js";

/** All cells of a rows x cols board in the given static order. */
export function staticCellOrder(rows: number, cols: number, order: CellOrder): Int32Array {
  const out = new Int32Array(rows * cols);
  let n = 0;
  switch (order) {
    case "most-constrained":
    case "row-major":
      for (let c = 0; c < rows * cols; c++) out[n++] = c;
      return out;
    case "scan":
      return scanCellOrder(rows, cols, "short");
    case "spiral": {
      const seen = new Uint8Array(rows * cols);
      let r = (rows - 1) >> 1, c = (cols - 1) >> 1;
      const dr = [0, 1, 0, -1], dc = [1, 0, -1, 0];
      const take = (): void => {
        if (r >= 0 && r < rows && c >= 0 && c < cols && !seen[r * cols + c]) {
          seen[r * cols + c] = 1;
          out[n++] = r * cols + c;
        }
      };
      take();
      for (let len = 1, dir = 0; n < rows * cols; len++) {
        for (let twice = 0; twice < 2; twice++, dir = (dir + 1) & 3) {
          for (let i = 0; i < len; i++) { r += dr[dir]; c += dc[dir]; take(); }
        }
      }
      return out;
    }
    case "frame-first": {
      const seen = new Uint8Array(rows * cols);
      const push = (cell: number): void => { if (!seen[cell]) { seen[cell] = 1; out[n++] = cell; } };
      for (let c = 0; c < cols; c++) push(c);
      for (let r = 1; r < rows; r++) push(r * cols + cols - 1);
      for (let c = cols - 2; c >= 0; c--) push((rows - 1) * cols + c);
      for (let r = rows - 2; r >= 1; r--) push(r * cols);
      for (let cell = 0; cell < rows * cols; cell++) push(cell);
      return out;
    }
    default:
      throw new InvalidOptionError("cellOrder", `unknown cell order '${String(order)}' (known: ${cellOrders.join(", ")})`);
  }
}

/** rank[cell] = position of the cell in the order. */
export function orderRank(order: Int32Array): Int32Array {
  const rank = new Int32Array(order.length);
  order.forEach((cell, i) => { rank[cell] = i; });
  return rank;
}
