#!/usr/bin/env bash
# Installs the real agent CLIs the end-to-end tests drive (Claude Code, Codex, Gemini CLI) at the
# versions pinned in scripts/agents.json, into a cache directory outside node_modules; they are
# never a dependency of any package. One directory per agent and version:
# `$CORDON_AGENTS_DIR/<agent>-<version>/node_modules/.bin/<bin>`. A complete install is reused;
# a half-finished one (no `.complete` marker) is redone. test/support/agents.ts reads the same table.
#
#   CORDON_AGENTS_DIR   where to install (default: <repo>/.cache/agents, gitignored)
#
# The pins are the versions test/fixtures/hook-payloads was captured with (its README).
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
dir="${CORDON_AGENTS_DIR:-$repo/.cache/agents}"
mkdir -p "$dir"

# One "agent package version bin" line per agent, from the shared table.
mapfile -t AGENTS < <(node -e '
  const t = require(process.argv[1]);
  for (const [agent, a] of Object.entries(t)) console.log([agent, a.package, a.version, a.bin].join(" "));
' "$repo/scripts/agents.json")

install_one() {
  local agent="$1" pkg="$2" version="$3" bin="$4"
  local target="$dir/$agent-$version"
  if [[ -f "$target/.complete" && -x "$target/node_modules/.bin/$bin" ]]; then
    echo "install-agents: $agent $version present ($target)"
    return 0
  fi
  echo "install-agents: installing $pkg@$version into $target"
  rm -rf "$target"
  mkdir -p "$target"
  # A package.json of its own makes this directory the npm prefix (not the repo's workspace root).
  printf '{"name":"cordon-agent-%s","private":true}\n' "$agent" >"$target/package.json"
  # engine-strict off: Claude Code declares node>=22 but runs a bundled native binary.
  (cd "$target" && npm install --prefix "$target" --no-audit --no-fund --no-save --no-package-lock \
    --engine-strict=false --loglevel=error "$pkg@$version")
  if [[ ! -x "$target/node_modules/.bin/$bin" ]]; then
    echo "install-agents: $pkg@$version installed but $target/node_modules/.bin/$bin is missing" >&2
    return 1
  fi
  # In a home of its own: the agents write state there even for --version (Codex its
  # ~/.codex/tmp/arg0 link farm, Gemini CLI a ~/.gemini/projects.json temp file).
  local scratch_home
  scratch_home="$(mktemp -d)"
  # Codex warns on stderr when CODEX_HOME names a directory that does not exist.
  mkdir -p "$scratch_home/.codex"
  # Its stderr is shown only if it fails: Codex warns that it makes no PATH aliases under /tmp.
  local version_err
  if ! version_err="$(HOME="$scratch_home" XDG_CONFIG_HOME="$scratch_home/.config" XDG_DATA_HOME="$scratch_home/.local/share" \
    XDG_CACHE_HOME="$scratch_home/.cache" CODEX_HOME="$scratch_home/.codex" \
    "$target/node_modules/.bin/$bin" --version 2>&1 >/dev/null)"; then
    rm -rf "$scratch_home"
    echo "install-agents: $target/node_modules/.bin/$bin --version failed:" >&2
    printf '%s\n' "$version_err" >&2
    return 1
  fi
  rm -rf "$scratch_home"
  touch "$target/.complete"
}

for line in "${AGENTS[@]}"; do
  # shellcheck disable=SC2086
  install_one $line
done
