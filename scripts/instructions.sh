#!/usr/bin/env bash
# Counts the instructions one command executes in user space, N times, with valgrind's callgrind
# (Debian's `valgrind`), and prints each count and the median in millions. On a shared VM wall and
# CPU times of a 100 ms process vary by a third from minute to minute; these counts repeat within
# about 0.5 %, so a change of 1 % of a Node process shows (docs/ARCHITECTURE.md "Where the time
# goes"). What they leave out: the kernel's work (fork, page faults, fsync) and waiting.
#
# V8 draws a random hash seed at every start and searches primes for it (`detail::sprp` under
# `HashSeed::InitializeRoots`), a few million instructions that differ from start to start; they
# are subtracted.
#
# Usage: scripts/instructions.sh N COMMAND [ARG...]
#   e.g. scripts/instructions.sh 3 node packages/host/bin/run.cjs control run -- true
# Run the command once under valgrind first when it writes a cache on its first run (cordon's
# code caches): the counted runs then all read it.
set -euo pipefail
if [ "$#" -lt 2 ]; then
  echo "usage: $0 N COMMAND [ARG...]" >&2
  exit 2
fi
command -v valgrind >/dev/null || { echo "$0: valgrind is not installed (apt-get install valgrind)" >&2; exit 2; }
runs=$1
shift
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
counts=()
for i in $(seq "$runs"); do
  valgrind --tool=callgrind --smc-check=all-non-file --callgrind-out-file="$out/run.$i" "$@" >/dev/null 2>"$out/log.$i" || true
  report=$(callgrind_annotate "$out/run.$i" 2>/dev/null)
  total=$(awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1 }' <<<"$report")
  seed=$(awk '/detail::sprp/ { gsub(",", "", $1); print $1; exit }' <<<"$report")
  if [ -z "$total" ]; then
    echo "$0: callgrind wrote no counts; its log:" >&2
    cat "$out/log.$i" >&2
    exit 1
  fi
  counts+=($((total - ${seed:-0})))
done
printf '%s\n' "${counts[@]}" | sort -n | awk '{ a[NR] = $1; printf "%.2fM ", $1 / 1e6 } END { printf " median %.2fM\n", a[int((NR + 1) / 2)] / 1e6 }'
