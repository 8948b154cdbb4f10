#!/usr/bin/env bash
# Runs one bench under another Node major (22 or 24), the versions users run: installs that Node
# and better-sqlite3 for its ABI (scripts/install-node.sh, as test-node.sh does) and runs
# bench/<name>.ts with it first on PATH. Every bench starts its Node processes with
# `process.execPath`, so `node -e 0`, the built CLI and the floor rows all run under that version
# and each ratio compares like with like. Run after `npm run build`.
#
#   npm run bench:node -- 24 control          # bench:control under Node 24
#   npm run bench:node -- 22 envelope         # environment variables pass through, e.g.
#   CORDON_BENCH_ONLY=small npm run bench:node -- 22 envelope
set -euo pipefail
cd "$(dirname "$0")/.."
major="${1:?usage: bench-node.sh <major version, e.g. 22> <bench name, e.g. control> [ARG...]}"
name="${2:?usage: bench-node.sh <major version, e.g. 22> <bench name, e.g. control> [ARG...]}"
shift 2
# A bench is what package.json names `bench:<name>` (bench/ also holds their shared modules).
benches="$(sed -n 's/^ *"bench:\([a-z-]*\)": "tsx bench\/\1\.ts".*/\1/p' package.json | tr '\n' ' ')"
case " $benches " in
  *" $name "*) ;;
  *) echo "bench-node: no bench named '$name'; one of: $benches" >&2; exit 2 ;;
esac
bin="$(bash scripts/install-node.sh "$major" | tail -1)"
export PATH="$bin:$PATH"
echo "bench-node: $(node --version) from $bin" >&2
exec node node_modules/tsx/dist/cli.mjs "bench/$name.ts" "$@"
