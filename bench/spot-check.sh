#!/usr/bin/env bash
# Spot checks' cost (BENCHMARKS.md "Spot checks"): bench/puzzles/unsat-8x8.txt on the embedded cluster, 2 workers,
# without spot checks and with the default share, interleaved, REPEATS times (default 3). Prints one line per run.
# ARGS (default: --cell-order most-constrained) go to every run: with the default scan cubes a portfolio member
# exhausts this board's whole tree before the cubes are refuted, and no spot check runs.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
read -r -a extra <<< "${ARGS---cell-order most-constrained}"
for i in $(seq 1 "${REPEATS:-3}"); do
  for p in 0 5; do
    start=$(date +%s.%N)
    out=$(node dist/cli/main.js solve bench/puzzles/unsat-8x8.txt --workers 2 --spot-check "$p" "${extra[@]}" 2>&1)
    end=$(date +%s.%N)
    printf 'repeat %s spot-check %s%%: wall %.2f s, load %s | %s\n' "$i" "$p" "$(echo "$end - $start" | bc)" "$(cut -d' ' -f1 /proc/loadavg)" "$(echo "$out" | tail -1)"
  done
done
