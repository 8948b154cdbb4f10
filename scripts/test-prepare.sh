#!/usr/bin/env bash
# Installs what the test suites need beyond npm dependencies, reusing what is already there.
# Each step is idempotent and quick when its work is done.
set -euo pipefail
cd "$(dirname "$0")/.."

# Real agent CLIs for the end-to-end hook and runner tests (cache dir, pinned versions).
bash scripts/install-agents.sh
