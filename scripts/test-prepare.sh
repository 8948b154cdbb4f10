#!/usr/bin/env bash
# Installs what the test suites need beyond npm dependencies, reusing what is already there.
# Each step is idempotent and quick when its work is done. Everything inside the clone goes to
# .cache/ (gitignored); every change outside it is printed as it is made, as
# "<script>: changing the machine: …" (scripts/lib/machine.sh), and listed in docs/testing.md.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=lib/machine.sh
. scripts/lib/machine.sh
started=$SECONDS
who=test-prepare

# Real agent CLIs for the end-to-end hook and runner tests (.cache/agents, pinned versions).
bash scripts/install-agents.sh

# A local npm registry for the plugin install end-to-end test (test/e2e/registry; .cache/verdaccio).
bash scripts/install-verdaccio.sh

# Wine, the Windows node.exe and koffi's Windows prebuilt for the sampler-windows Wine suite
# (plugins/sampler-windows/test/wine.test.ts; .cache/wine); writes a skip reason where Wine
# cannot be installed.
bash scripts/install-wine.sh

# tmux drives `cordon pcodx interactive` through a real pseudo-terminal (plugins/codex/test/pcodx).
command -v tmux >/dev/null 2>&1 || apt_install "$who" tmux || true

# PostgreSQL for the shared telemetry store tests (packages/host/test/telemetry/reduce/postgres.test.ts):
# they start their own cluster with initdb + pg_ctl (as the postgres user when run as root).
if ! command -v initdb >/dev/null 2>&1 || ! command -v pg_ctl >/dev/null 2>&1; then
  apt_install "$who" postgresql || true
  # Debian keeps the server binaries out of PATH; link the newest version's in.
  bindir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
  if [ -n "$bindir" ]; then
    for b in initdb pg_ctl postgres; do
      if [ ! -e "/usr/local/bin/$b" ] && [ -w /usr/local/bin ]; then
        machine_change "$who" "ln -s $bindir/$b /usr/local/bin/$b"
        ln -s "$bindir/$b" "/usr/local/bin/$b"
      fi
    done
  fi
fi
# As root the tests run initdb as the postgres user, which the package creates. A machine has been
# seen to come back with the binaries but without that account, and with /etc/passwd readable by
# root only (then initdb, as postgres, cannot look itself up); either would skip the suite, so the
# account is made and the account files get Debian's usual mode 0644.
if [ "$(id -u)" = 0 ] && command -v initdb >/dev/null 2>&1; then
  if ! id postgres >/dev/null 2>&1; then
    if getent group postgres >/dev/null; then group=(-g postgres); else group=(--user-group); fi
    machine_change "$who" "useradd --system postgres (the account Debian's postgresql package makes)"
    useradd --system "${group[@]}" --home-dir /var/lib/postgresql --no-create-home --shell /bin/sh postgres
  fi
  for f in /etc/passwd /etc/group; do
    if [ "$(stat -c %a "$f")" != 644 ]; then
      machine_change "$who" "chmod 644 $f (was $(stat -c %a "$f"))"
      chmod 644 "$f"
    fi
  done
fi

# Headless Chromium opens the `cordon analyze` HTML report (packages/host/test/telemetry/analyze/html.test.ts).
command -v chromium >/dev/null 2>&1 || apt_install "$who" chromium || true

# qemu, busybox-static and a Debian kernel for the real-cgroup-v2 VM suite of `cordon control`
# (test/vm/; .cache/vm); when they cannot be installed the suite skips itself and says why.
bash scripts/vm-prepare.sh

echo "$who: done in $((SECONDS - started)) s; .cache/ holds $(du -sh .cache 2>/dev/null | cut -f1)" >&2
