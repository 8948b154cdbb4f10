#!/usr/bin/env bash
# Runs the suites of vitest.node.config.mts under another Node major (22 or 24): installs that
# Node and better-sqlite3 for its ABI (scripts/install-node.sh), puts it first on PATH so every
# `node` the tests start (the built CLI, the agents' own Node scripts, npm) is that version, and
# points node-gyp at its headers. Run after `npm run build` (npm run test:node22 does both).
set -euo pipefail
cd "$(dirname "$0")/.."
major="${1:?usage: test-node.sh <major version, e.g. 22>}"
shift
bin="$(bash scripts/install-node.sh "$major" | tail -1)"
# The agent CLIs the real-agent suite drives.
bash scripts/install-agents.sh >/dev/null
export PATH="$bin:$PATH"
# node-gyp's own variable (it overrides a `nodedir` from .npmrc, and npm does not warn about it).
export npm_package_config_node_gyp_nodedir="$(dirname "$bin")"
echo "test-node: $(node --version) from $bin" >&2
exec node node_modules/vitest/vitest.mjs run --config vitest.node.config.mts "$@"
