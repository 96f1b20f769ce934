/**
 * The splitter's compact tree: one row of typed arrays per node (parent, cell, class orientation,
 * branching of the step that created it, depth, weight), grown by doubling. Node 0 is the root (the
 * puzzle with its hints, or the base cube). Open nodes are kept as ids in a FIFO queue or a max-heap by
 * weight; nothing becomes an object until a cube is emitted.
 */

/** Growable node arena. */
export class SplitTree {
  parent: Int32Array = new Int32Array(1024);
  cell: Int32Array = new Int32Array(1024);
  ori: Int32Array = new Int32Array(1024);
  branch: Int32Array = new Int32Array(1024);
  depth: Int32Array = new Int32Array(1024);
  weight: Float64Array = new Float64Array(1024);
  size = 0;

  constructor(rootWeight: number) {
    this.add(-1, -1, -1, 0, 0, rootWeight);
  }

  add(parent: number, cell: number, ori: number, branch: number, depth: number, weight: number): number {
    if (this.size === this.parent.length) this.grow();
    const id = this.size++;
    this.parent[id] = parent;
    this.cell[id] = cell;
    this.ori[id] = ori;
    this.branch[id] = branch;
    this.depth[id] = depth;
    this.weight[id] = weight;
    return id;
  }

  /** Writes the node ids from the root's child down to `id` into `out`; returns the path length. */
  path(id: number, out: Int32Array): number {
    const n = this.depth[id];
    for (let i = n - 1, v = id; i >= 0; i--, v = this.parent[v]) out[i] = v;
    return n;
  }

  private grow(): void {
    const cap = this.parent.length * 2;
    const g32 = (a: Int32Array): Int32Array => { const b = new Int32Array(cap); b.set(a); return b; };
    this.parent = g32(this.parent);
    this.cell = g32(this.cell);
    this.ori = g32(this.ori);
    this.branch = g32(this.branch);
    this.depth = g32(this.depth);
    const w = new Float64Array(cap);
    w.set(this.weight);
    this.weight = w;
  }
}

/** Growable FIFO of node ids. */
export class IdQueue {
  private items: Int32Array = new Int32Array(1024);
  private head = 0;
  private tail = 0;

  get length(): number { return this.tail - this.head; }

  push(id: number): void {
    if (this.tail === this.items.length) {
      const live = this.tail - this.head;
      const b = new Int32Array(live * 2 >= this.items.length ? this.items.length * 2 : this.items.length);
      b.set(this.items.subarray(this.head, this.tail));
      this.items = b;
      this.head = 0;
      this.tail = live;
    }
    this.items[this.tail++] = id;
  }

  peek(): number { return this.items[this.head]; }

  shift(): number { return this.items[this.head++]; }

  /** Remaining ids in order. */
  drain(): Int32Array { return this.items.slice(this.head, this.tail); }
}

/** Max-heap of node ids by weight; equal weights: smaller id first (deterministic). */
export class WeightHeap {
  private items: Int32Array = new Int32Array(1024);
  length = 0;

  constructor(private readonly tree: SplitTree) {}

  private before(a: number, b: number): boolean {
    const wa = this.tree.weight[a], wb = this.tree.weight[b];
    return wa > wb || (wa === wb && a < b);
  }

  push(id: number): void {
    if (this.length === this.items.length) {
      const b = new Int32Array(this.items.length * 2);
      b.set(this.items);
      this.items = b;
    }
    let i = this.length++;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!this.before(id, this.items[p])) break;
      this.items[i] = this.items[p];
      i = p;
    }
    this.items[i] = id;
  }

  pop(): number {
    const top = this.items[0];
    const last = this.items[--this.length];
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= this.length) break;
      const r = l + 1;
      const c = r < this.length && this.before(this.items[r], this.items[l]) ? r : l;
      if (!this.before(this.items[c], last)) break;
      this.items[i] = this.items[c];
      i = c;
    }
    if (this.length > 0) this.items[i] = last;
    return top;
  }

  /** Remaining ids, any order. */
  drain(): Int32Array { return this.items.slice(0, this.length); }
}
