#!/usr/bin/env bash
# Benchmarks (bench/*.ts; results and how they were taken in BENCHMARKS.md).
#
#   npm run bench                       list the benchmarks with their one-line summaries
#   npm run bench -- NAME [ARGS...]     run bench/NAME.ts (for example: npm run bench -- cube-overhead --cubes 200)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

if [ "$#" -eq 0 ]; then
  echo "usage: npm run bench -- NAME [ARGS...]   (results: BENCHMARKS.md)"
  for f in bench/*.ts; do
    # The first line of the file's header comment that is not blank.
    summary=$(sed -n '2,12{s/^ \* \{0,1\}//;/^[[:space:]]*$/d;p}' "$f" | head -1)
    printf '  %-18s %s\n' "$(basename "$f" .ts)" "$summary"
  done
  exit 0
fi

name=$1
shift
[ -f "bench/$name.ts" ] || { echo "bench: no benchmark \"$name\" (npm run bench lists them)" >&2; exit 2; }
npm run --silent build
exec node --import tsx "bench/$name.ts" "$@"
