#!/usr/bin/env bash
# Installs what the test suites need beyond npm dependencies, reusing what is already there.
# Each step is idempotent and quick when its work is done.
set -euo pipefail
cd "$(dirname "$0")/.."

# Real agent CLIs for the end-to-end hook and runner tests (cache dir, pinned versions).
bash scripts/install-agents.sh

# A local npm registry for the plugin install end-to-end test (test/e2e/registry).
bash scripts/install-verdaccio.sh

# Wine, the Windows node.exe and koffi's Windows prebuilt for the sampler-windows Wine suite
# (plugins/sampler-windows/test/wine.test.ts); writes a skip reason where Wine cannot be installed.
bash scripts/install-wine.sh

# tmux drives `cordon pcodx interactive` through a real pseudo-terminal (plugins/codex/test/pcodx).
if ! command -v tmux >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq tmux >/dev/null
  else sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq tmux >/dev/null
  fi
fi

# PostgreSQL for the shared telemetry store tests (packages/host/test/telemetry/reduce/postgres.test.ts):
# they start their own cluster with initdb + pg_ctl (as the postgres user when run as root).
if ! command -v initdb >/dev/null 2>&1 || ! command -v pg_ctl >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
  else sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
  fi
  # Debian keeps the server binaries out of PATH; link the newest version's in.
  bindir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
  if [ -n "$bindir" ]; then for b in initdb pg_ctl postgres; do [ -e "/usr/local/bin/$b" ] || ln -s "$bindir/$b" "/usr/local/bin/$b" 2>/dev/null || true; done; fi
fi
# As root the tests run initdb as the postgres user, which the package creates. The development VM
# has been seen to come back with the binaries but without that account, and with /etc/passwd
# readable by root only (then initdb, as postgres, cannot look itself up); either would skip the
# suite, so the account is made and the account files get Debian's usual mode 0644.
if [ "$(id -u)" = 0 ] && command -v initdb >/dev/null 2>&1; then
  if ! id postgres >/dev/null 2>&1; then
    if getent group postgres >/dev/null; then group=(-g postgres); else group=(--user-group); fi
    useradd --system "${group[@]}" --home-dir /var/lib/postgresql --no-create-home --shell /bin/sh postgres
  fi
  for f in /etc/passwd /etc/group; do [ "$(stat -c %a "$f")" = 644 ] || chmod 644 "$f"; done
fi

# Headless Chromium opens the `cordon analyze` HTML report (packages/host/test/telemetry/analyze/html.test.ts).
if ! command -v chromium >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  else sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  fi
fi

# qemu, busybox-static and a Debian kernel for the real-cgroup-v2 VM suite of `cordon control`
# (test/vm/); when they cannot be installed the suite skips itself and says why.
bash scripts/vm-prepare.sh
