#!/usr/bin/env python3
"""The cubist-placement encoding of a canonical puzzle file, written apart from Cubist for certificate bundles.

A certificate says "formula.cnf is unsatisfiable", and the proofs show that; this script shows that formula.cnf is
the puzzle: it encodes puzzle.txt again, from the encoding's definition in Cubist's docs/encodings.md
("cubist-placement"), and compares the clause sets. It shares no code with Cubist (Python 3 standard library only)
so that a mistake in one encoder is not repeated in the other.

    python3 encode.py [--order ORDER] PUZZLE                    the formula, in DIMACS, on stdout
    python3 encode.py --check FORMULA [--encoding E] [--order ORDER] PUZZLE
                                                             exit 0 when FORMULA is that formula, else 1 (and why)

FORMULA is read as check.sh hands it to drat-trim: the first line starting `p cnf` gives the header, every line
starting with `c` or `p` is dropped, and the remaining integers, split at each 0, are the clauses. The two
formulas are the same when the headers agree and the clauses agree as a multiset, each clause a set of literals.
"""

import sys
from collections import Counter
from functools import cmp_to_key

N, E, S, W = 0, 1, 2, 3
CORNER, BORDER, CENTRE = 0, 1, 2
ENCODING = "cubist-placement"
ORDERS = ("paper", "row-major", "column-major", "diagonal", "spiral")


class Refused(Exception):
    """A puzzle file that cannot be encoded, or a formula that is not the encoding."""


# ---- the puzzle (docs/formats.md, canonical format) -----------------------------------------------------------

def read_puzzle(path):
    """(rows, cols, pieces, hints): pieces [(id, (n, e, s, w))] in file order, hints [(row, col, piece index, rot)]."""
    with open(path, "rb") as f:
        text = f.read().decode("utf-8")
    if text.startswith("\ufeff"):
        text = text[1:]
    size, pieces, raw_hints = None, [], []
    for number, line in enumerate(text.replace("\r\n", "\n").replace("\r", "\n").split("\n"), 1):
        fields = line.split("#", 1)[0].split()
        if not fields:
            continue
        where = "%s:%d" % (path, number)
        if size is None and len(fields) == 2:
            size = tuple(whole(f, where) for f in fields)
        elif fields[0].lower() == "hint" and len(fields) == 5:
            raw_hints.append((where, [whole(f, where) for f in fields[1:]]))
        elif len(fields) == 5:
            values = [whole(f, where) for f in fields]
            pieces.append((values[0], tuple(values[1:])))
        else:
            raise Refused("%s: expected `rows cols`, `id N E S W` or `hint ROW COL ID ROT`" % where)
    if size is None:
        raise Refused("%s: no `rows cols` header (the bundle's puzzle.txt always has one)" % path)
    rows, cols = size
    if rows < 2 or cols < 2 or len(pieces) != rows * cols:
        raise Refused("%s: %d pieces for a %dx%d board" % (path, len(pieces), rows, cols))
    index = {}
    for i, (ident, _) in enumerate(pieces):
        if ident in index:
            raise Refused("%s: piece id %d twice" % (path, ident))
        index[ident] = i
    hints = []
    for where, (row, col, ident, rot) in raw_hints:
        if ident not in index or not (0 <= row < rows and 0 <= col < cols and 0 <= rot <= 3):
            raise Refused("%s: the hint names no piece or cell" % where)
        hints.append((row, col, index[ident], rot))
    return rows, cols, pieces, hints


def whole(field, where):
    try:
        return int(field, 10)
    except ValueError:
        raise Refused("%s: '%s' is not an integer" % (where, field[:40])) from None


def shown(edges, rot, side):
    """The colour a piece turned `rot` quarter turns clockwise shows on `side`."""
    return edges[(side - rot) % 4]


# ---- the board: classes, diamonds, colour classes (docs/encodings.md, section 3) ------------------------------

class Board:
    def __init__(self, rows, cols, pieces):
        self.rows, self.cols = rows, cols
        self.cells = rows * cols
        self.bounded = any(0 in edges for _, edges in pieces)
        self.cell_class = [self.class_of_cell(c) for c in range(self.cells)]
        self.piece_class = [self.class_of_piece(edges) for _, edges in pieces]
        self.diamonds = []  # (cell a, cell b, border?) in Figure 2 order
        self.diamond_at = {}  # (cell, side) -> diamond
        for r in range(rows):
            for c in range(cols - 1):
                self.add_diamond(r * cols + c, E, r * cols + c + 1, W, self.bounded and r in (0, rows - 1))
            if r + 1 < rows:
                for c in range(cols):
                    self.add_diamond(r * cols + c, S, (r + 1) * cols + c, N, self.bounded and c in (0, cols - 1))
        border_colours, centre_colours = set(), set()
        for _, e in pieces:
            for d in range(4):
                if e[d] != 0:
                    beside_grey = e[(d + 1) % 4] == 0 or e[(d + 3) % 4] == 0
                    (border_colours if beside_grey else centre_colours).add(e[d])
        self.class_colours = {True: sorted(border_colours), False: sorted(centre_colours)}

    def rim(self, cell, side):
        r, c = divmod(cell, self.cols)
        return (r == 0, c == self.cols - 1, r == self.rows - 1, c == 0)[side]

    def class_of_cell(self, cell):
        if not self.bounded:
            return CENTRE
        rims = sum(self.rim(cell, d) for d in range(4))
        return CORNER if rims >= 2 else BORDER if rims == 1 else CENTRE

    def class_of_piece(self, edges):
        if not self.bounded:
            return CENTRE
        greys = list(edges).count(0)
        return CORNER if greys >= 2 else BORDER if greys == 1 else CENTRE

    def add_diamond(self, a, side_a, b, side_b, border):
        self.diamond_at[(a, side_a)] = self.diamond_at[(b, side_b)] = len(self.diamonds)
        self.diamonds.append((a, b, border))

    def paper_cells(self):
        """Every cell, class by class in the paper's order: corners TL TR BL BR; border top, left, right, bottom; centre."""
        rows, cols, at = self.rows, self.cols, lambda r, c: r * self.cols + c
        if not self.bounded:
            return list(range(self.cells))
        corners = [at(0, 0), at(0, cols - 1), at(rows - 1, 0), at(rows - 1, cols - 1)]
        border = [at(0, c) for c in range(1, cols - 1)] + [at(r, 0) for r in range(1, rows - 1)] \
            + [at(r, cols - 1) for r in range(1, rows - 1)] + [at(rows - 1, c) for c in range(1, cols - 1)]
        centre = [at(r, c) for r in range(1, rows - 1) for c in range(1, cols - 1)]
        return corners + border + centre

    def ordered_cells(self, order):
        """The cells in a named order of docs/encodings.md "Variable orders" (not paper)."""
        rows, cols = self.rows, self.cols
        cells = list(range(self.cells))
        if order == "row-major":
            return cells
        if order == "column-major":
            return sorted(cells, key=lambda c: (c % cols, c // cols))
        if order == "diagonal":
            return sorted(cells, key=lambda c: (c // cols + c % cols, c // cols))
        # spiral: ring max(|dr|, |dc|), then clockwise from north, compared exactly (no floating point).
        def direction(c):
            dr, dc = 2 * (c // cols) - (rows - 1), 2 * (c % cols) - (cols - 1)
            x, y = -dr, dc  # north is +x, east is +y: the clockwise angle from north is atan2(y, x)
            half = 0 if (y > 0 or (y == 0 and x >= 0)) else 1
            return max(abs(dr), abs(dc)), half, x, y
        def compare(a, b):
            ra, ha, xa, ya = direction(a)
            rb, hb, xb, yb = direction(b)
            if ra != rb:
                return -1 if ra < rb else 1
            if ha != hb:
                return -1 if ha < hb else 1
            cross = xa * yb - ya * xb
            if cross != 0:
                return -1 if cross > 0 else 1
            return -1 if a < b else (1 if a > b else 0)
        return sorted(cells, key=cmp_to_key(compare))


# ---- cubist-placement (docs/encodings.md, "Cubist's own encoding") --------------------------------------------

class Placements:
    """Units (piece types: pieces equal up to rotation), and every placement (cell, unit, rotation) that fits."""

    def __init__(self, board, pieces):
        self.board = board
        self.units = []  # lists of piece indices, the lowest first (the representative)
        self.unit_of = []
        for i, (_, edges) in enumerate(pieces):
            for u, members in enumerate(self.units):
                rep = pieces[members[0]][1]
                if board.piece_class[members[0]] == board.piece_class[i] and any(
                        all(shown(rep, r, d) == edges[d] for d in range(4)) for r in range(4)):
                    members.append(i)
                    self.unit_of.append(u)
                    break
            else:
                self.unit_of.append(len(self.units))
                self.units.append([i])
        self.rep = [pieces[members[0]][1] for members in self.units]
        # Per cell: [(unit, rotation, sides)], units ascending, rotations ascending; sides[d] is None on the rim.
        self.at = [self.cell_placements(cell) for cell in range(board.cells)]

    def rotations(self, unit, cell):
        board, rep = self.board, self.rep[unit]
        if board.bounded and board.cell_class[cell] != CENTRE:
            fits = [r for r in range(4) if all((shown(rep, r, d) == 0) == board.rim(cell, d) for d in range(4))]
            if not fits:
                raise Refused("piece %d cannot turn its grey sides to the rim of cell %d" % (self.units[unit][0], cell))
            return fits[:1]
        distinct, seen = [], set()
        for r in range(4):
            edges = tuple(shown(rep, r, d) for d in range(4))
            if edges not in seen:
                seen.add(edges)
                distinct.append(r)
        return distinct

    def cell_placements(self, cell):
        board, out = self.board, []
        for u in range(len(self.units)):
            if board.piece_class[self.units[u][0]] != board.cell_class[cell]:
                continue
            for r in self.rotations(u, cell):
                sides = tuple(shown(self.rep[u], r, d) if (cell, d) in board.diamond_at else None for d in range(4))
                out.append((u, r, sides))
        return out


class Numbering:
    """p, x and y numbered in `order`; auxiliary variables come after them, handed out by `aux()`."""

    def __init__(self, model, order):
        board = model.board
        self.model, self.next = model, 1
        self.p = {}  # (cell, index in the cell's list) -> variable
        self.x = {}  # (unit, cell) -> variable
        self.y_base = {}
        if order == "paper":
            for u in range(len(model.units)):
                for cell in board.paper_cells():
                    self.number_unit(u, cell)
            for k in range(len(board.diamonds)):
                self.number_diamond(k)
        else:
            for cell in board.ordered_cells(order):
                for u in sorted({u for u, _, _ in model.at[cell]}):
                    self.number_unit(u, cell)
                for d in range(4):
                    k = board.diamond_at.get((cell, d))
                    if k is not None and k not in self.y_base:
                        self.number_diamond(k)
        self.main = self.next - 1

    def take(self):
        self.next += 1
        return self.next - 1

    def number_unit(self, unit, cell):
        mine = [i for i, (u, _, _) in enumerate(self.model.at[cell]) if u == unit]
        if not mine:
            return
        if len(mine) == 1:
            self.p[(cell, mine[0])] = self.x[(unit, cell)] = self.take()
            return
        self.x[(unit, cell)] = self.take()
        for i in mine:
            self.p[(cell, i)] = self.take()

    def number_diamond(self, k):
        self.y_base[k] = self.next
        self.next += len(self.model.board.class_colours[self.model.board.diamonds[k][2]])

    def y(self, k, colour):
        colours = self.model.board.class_colours[self.model.board.diamonds[k][2]]
        return self.y_base[k] + colours.index(colour) if colour in colours else None

    def aux(self):
        return self.take()


def at_most_one_pairwise(clauses, lits):
    for i in range(len(lits)):
        for j in range(i + 1, len(lits)):
            clauses.append((-lits[i], -lits[j]))


def at_most(clauses, lits, m, num):
    """At most m of lits: Sinz's sequential counter (pairwise when m = 1 and at most 4 literals)."""
    n = len(lits)
    if n <= m:
        return
    if m == 1 and n <= 4:
        at_most_one_pairwise(clauses, lits)
        return
    before = []  # before[j]: at least j + 1 of the literals so far are true
    for i in range(n - 1):
        now = [num.aux() for _ in range(min(m, i + 1))]
        clauses.append((-lits[i], now[0]))
        for j in range(len(before)):
            clauses.append((-before[j], now[j]))
        for j in range(1, len(now)):
            clauses.append((-lits[i], -before[j - 1], now[j]))
        if len(before) == m:
            clauses.append((-lits[i], -before[m - 1]))
        before = now
    if len(before) == m:
        clauses.append((-lits[n - 1], -before[m - 1]))


def placement_encoding(puzzle, order):
    """(number of variables, clauses) of cubist-placement with its defaults and the given variable order."""
    rows, cols, pieces, hints = puzzle
    board = Board(rows, cols, pieces)
    model = Placements(board, pieces)
    num = Numbering(model, order)
    clauses = []
    p, x, y = num.p, num.x, num.y

    # cells: at least one placement; placements that show the same colours exclude each other.
    for cell in range(board.cells):
        clauses.append(tuple(p[(cell, i)] for i in range(len(model.at[cell]))))
        alike = {}
        for i, (_, _, sides) in enumerate(model.at[cell]):
            alike.setdefault(sides, []).append(p[(cell, i)])
        for group in alike.values():
            at_most_one_pairwise(clauses, group)

    # pieces: x <-> OR of the unit's placements on the cell; each unit on at least one and at most m cells.
    for cell in range(board.cells):
        for u in sorted({u for u, _, _ in model.at[cell]}):
            mine = [p[(cell, i)] for i, (v, _, _) in enumerate(model.at[cell]) if v == u]
            if len(mine) > 1:
                clauses.extend((-pl, x[(u, cell)]) for pl in mine)
                clauses.append((-x[(u, cell)],) + tuple(mine))
    for u, members in enumerate(model.units):
        where = [x[(u, cell)] for cell in range(board.cells) if (u, cell) in x]
        clauses.append(tuple(where))
        at_most(clauses, where, len(members), num)

    # colours: exactly one colour of its class per diamond.
    for k, (_, _, border) in enumerate(board.diamonds):
        lits = [y(k, c) for c in board.class_colours[border]]
        clauses.append(tuple(lits))
        at_most_one_pairwise(clauses, lits)

    # match: a placement fixes the colour of every diamond of its cell.
    for cell in range(board.cells):
        for i, (_, _, sides) in enumerate(model.at[cell]):
            for d in range(4):
                if sides[d] is not None:
                    colour = y(board.diamond_at[(cell, d)], sides[d])
                    clauses.append((-p[(cell, i)], colour) if colour is not None else (-p[(cell, i)],))

    # support: a diamond's colour needs, on each of its two cells, a placement that shows it there.
    for k, (a, b, border) in enumerate(board.diamonds):
        for cell in (a, b):
            side = next(d for d in range(4) if board.diamond_at.get((cell, d)) == k)
            for c in board.class_colours[border]:
                showing = [p[(cell, i)] for i, (_, _, sides) in enumerate(model.at[cell]) if sides[side] == c]
                clauses.append((-y(k, c),) + tuple(showing))

    # hints: the literals of each hinted placement as unit clauses, each literal once.
    seen = set()
    for row, col, piece, rot in hints:
        for lit in hint_literals(model, num, row * cols + col, piece, rot, pieces):
            if lit not in seen:
                seen.add(lit)
                clauses.append((lit,))
    return num.next - 1, clauses


def hint_literals(model, num, cell, piece, rot, pieces):
    """p of the placement that shows the hinted piece's colours on the cell, x when it is another variable, then y."""
    want = tuple(shown(pieces[piece][1], rot, d) for d in range(4))
    unit = model.unit_of[piece]
    for i, (u, r, sides) in enumerate(model.at[cell]):
        if u == unit and tuple(shown(model.rep[u], r, d) for d in range(4)) == want:
            lits = [num.p[(cell, i)]]
            if num.x[(u, cell)] != lits[0]:
                lits.append(num.x[(u, cell)])
            for d in range(4):
                if sides[d] is not None:
                    lits.append(num.y(model.board.diamond_at[(cell, d)], sides[d]))
            return lits
    raise Refused("the hint of piece %d on cell %d fits no placement there" % (pieces[piece][0], cell))


# ---- DIMACS ------------------------------------------------------------------------------------------------------

def read_formula(path):
    """(variables, clauses declared, clauses) as check.sh gives them to drat-trim."""
    header, numbers = None, []
    with open(path, "rb") as f:
        for raw in f:
            line = raw.decode("ascii", "replace")
            if line.startswith("p"):
                if header is None and line.startswith("p cnf"):
                    fields = line.split()
                    if len(fields) != 4:
                        raise Refused("%s: a malformed header: %s" % (path, line.strip()[:60]))
                    header = (whole(fields[2], path), whole(fields[3], path))
                continue
            if line.startswith("c"):
                continue
            numbers.extend(whole(t, path) for t in line.split())
    if header is None:
        raise Refused("%s: no `p cnf` header" % path)
    clauses, current = [], []
    for n in numbers:
        if n == 0:
            clauses.append(tuple(current))
            current = []
        else:
            current.append(n)
    if current:
        raise Refused("%s: the last clause has no closing 0" % path)
    return header[0], header[1], clauses


def normal(clauses):
    """Each clause as the sorted tuple of its distinct literals."""
    return [tuple(sorted(set(c))) for c in clauses]


def compare(path, variables, clauses):
    """None when the formula at `path` is (variables, clauses), else why not."""
    got_vars, got_count, got = read_formula(path)
    if got_count != len(got):
        return "its header says %d clauses, it has %d" % (got_count, len(got))
    if (got_vars, len(got)) != (variables, len(clauses)):
        return "it has %d variables and %d clauses, the puzzle's encoding %d and %d" % (got_vars, len(got), variables, len(clauses))
    mine, theirs = Counter(normal(clauses)), Counter(normal(got))
    if mine == theirs:
        return None
    missing, extra = list((mine - theirs).elements()), list((theirs - mine).elements())
    show = lambda c: " ".join(map(str, c)) + " 0"
    return "%d clauses of the encoding are missing (e.g. %s), %d others are in their place (e.g. %s)" % (
        len(missing), show(missing[0]), len(extra), show(extra[0]))


def main(argv):
    options, rest = {"--order": "paper", "--encoding": ENCODING, "--check": None}, []
    i = 0
    while i < len(argv):
        if argv[i] in options and i + 1 < len(argv):
            options[argv[i]] = argv[i + 1]
            i += 2
        else:
            rest.append(argv[i])
            i += 1
    order, check = options["--order"] or "paper", options["--check"]
    if len(rest) != 1 or order not in ORDERS:
        sys.stderr.write("usage: encode.py [--check FORMULA] [--encoding %s] [--order %s] PUZZLE\n" % (ENCODING, "|".join(ORDERS)))
        return 2
    what = "the %s encoding (order %s) of %s" % (ENCODING, order, rest[0])
    try:
        if options["--encoding"] != ENCODING:
            raise Refused("the formula's encoding is %s; this encoder re-derives %s only, so the formula cannot be tied "
                          "to the puzzle" % (options["--encoding"][:40], ENCODING))
        variables, clauses = placement_encoding(read_puzzle(rest[0]), order)
        if check is None:
            out = sys.stdout
            out.write("p cnf %d %d\n" % (variables, len(clauses)))
            for c in clauses:
                out.write(" ".join(map(str, c)) + " 0\n")
            return 0
        why = compare(check, variables, clauses)
    except (Refused, OSError, UnicodeDecodeError) as err:
        print("formula: NOT VERIFIED: %s" % err)
        return 1
    if why is not None:
        print("formula: NOT VERIFIED: %s is not %s: %s" % (check, what, why))
        return 1
    print("formula: VERIFIED: %s is %s (%d variables, %d clauses)" % (check, what, variables, len(clauses)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
