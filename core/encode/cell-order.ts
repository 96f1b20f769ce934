/**
 * Orders of the cells of a rows x cols board, used for variable numbering.
 *
 * - row-major: row by row from the top, each row left to right (the cell numbers).
 * - column-major: column by column from the left, each column top to bottom.
 * - diagonal: anti-diagonals from the top-left corner (row + col = 0, 1, 2, ...), each from the top.
 * - spiral: from the centre outwards, ring by ring, each ring clockwise starting at the top. With
 *   dr = 2*row - (rows-1) and dc = 2*col - (cols-1) (twice the offset from the board's centre, so
 *   integers), the ring is max(|dr|, |dc|) and the position in the ring the clockwise angle from north,
 *   atan2(dc, -dr) in [0, 2pi); ties go to the lower cell number. On an even square board ring 1 is the
 *   four middle cells, ring 3 the twelve around them, and so on; the last ring is the rim.
 */

export type CellOrderName = "row-major" | "column-major" | "diagonal" | "spiral";

/** The cells of the board in the named order (a permutation of 0..rows*cols-1). */
export function cellOrder(name: CellOrderName, rows: number, cols: number): number[] {
  const cells = Array.from({ length: rows * cols }, (_, i) => i);
  const row = (c: number): number => Math.floor(c / cols);
  const col = (c: number): number => c % cols;
  switch (name) {
    case "row-major":
      return cells;
    case "column-major":
      return cells.sort((a, b) => col(a) - col(b) || row(a) - row(b));
    case "diagonal":
      return cells.sort((a, b) => row(a) + col(a) - (row(b) + col(b)) || row(a) - row(b));
    case "spiral": {
      const ring = new Float64Array(cells.length);
      const angle = new Float64Array(cells.length);
      for (const c of cells) {
        const dr = 2 * row(c) - (rows - 1);
        const dc = 2 * col(c) - (cols - 1);
        ring[c] = Math.max(Math.abs(dr), Math.abs(dc));
        let a = Math.atan2(dc, -dr);
        if (a < 0) a += 2 * Math.PI;
        angle[c] = a;
      }
      return cells.sort((a, b) => ring[a] - ring[b] || angle[a] - angle[b] || a - b);
    }
  }
}
