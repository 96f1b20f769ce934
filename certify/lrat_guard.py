#!/usr/bin/env python3
"""Replays the empty clauses of an LRAT proof: what lrat-check does not check.

lrat-check (Debian's drat-trim package) accepts an empty clause whose hints propagate no conflict (its RAT check has
no pivot and passes), so `N 0 0` "verifies" any formula. Every empty clause of PROOF must be derived by unit
propagation: each hint a clause present at that line (a clause of CNF, or a lemma added and not deleted before),
unit or falsified under what the hints before it set, the last one falsified. The other lemmas are lrat-check's.

usage: python3 lrat_guard.py CNF PROOF    exit 0 when every empty clause holds, 1 (with the reason) otherwise
"""
import sys


def ints(text):
    return [int(t) for t in text.split()]


def main(cnf_path, proof_path):
    steps = []  # (line, hints) of the empty clauses
    with open(proof_path, "rb") as f:
        for n, raw in enumerate(f, 1):
            parts = raw.split(None, 2)
            if len(parts) >= 2 and parts[0].isdigit() and parts[1] == b"0":
                hints = ints(parts[2].decode("latin1")) if len(parts) > 2 else []
                steps.append((n, hints[:hints.index(0)] if 0 in hints else hints))
    if not steps:
        return "the proof has no empty clause"
    needed = {h for _, hints in steps for h in hints}
    lemmas = {}  # id -> [lits, added line, deleted line]
    with open(proof_path, "rb") as f:
        for n, raw in enumerate(f, 1):
            parts = raw.split(None, 1)
            if len(parts) < 2:
                continue
            if parts[1].startswith(b"d "):
                for i in ints(parts[1][2:].decode("latin1")):
                    if i in lemmas and lemmas[i][2] == 0:
                        lemmas[i][2] = n
                continue
            i = int(parts[0])
            if i in needed and i not in lemmas:
                rest = ints(parts[1].decode("latin1"))
                lemmas[i] = [rest[:rest.index(0)] if 0 in rest else rest, n, 0]
    formula, clause, current = {}, 0, []
    with open(cnf_path) as f:
        for line in f:
            if line[:1] in ("c", "p", "%"):
                continue
            for x in ints(line):
                if x != 0:
                    current.append(x)
                    continue
                clause += 1
                if clause in needed:
                    formula[clause] = current
                current = []
    for line, hints in steps:
        value = {}
        why = "its hints propagate no conflict"
        for k, h in enumerate(hints):
            if h in lemmas:
                lits, added, deleted = lemmas[h]
                c = lits if added < line and (deleted == 0 or deleted > line) else None
            else:
                c = formula.get(h)
            if c is None:
                why = "hint %d names no clause present there" % h
                break
            open_lits = [x for x in c if value.get(abs(x)) != (x < 0)]
            if not open_lits:
                why = None if k == len(hints) - 1 else "hint %d is falsified before the last hint" % h
                break
            if len(open_lits) > 1 or abs(open_lits[0]) in value:
                why = "hint %d is not unit" % h
                break
            value[abs(open_lits[0])] = open_lits[0] > 0
        if why:
            return "empty clause on proof line %d: %s" % (line, why)
    return None


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    problem = main(sys.argv[1], sys.argv[2])
    if problem:
        print("lrat_guard:", problem)
        sys.exit(1)
