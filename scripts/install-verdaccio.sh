#!/usr/bin/env bash
# Installs verdaccio 5 (the local npm registry the plugin-registry end-to-end test publishes to)
# into a cache directory, never as a dependency: `$CORDON_VERDACCIO_DIR`, default
# <repo>/.cache/verdaccio. Verdaccio 6 needs Node 22. One of verdaccio 5's own dependencies asks
# for `node-fetch@cjs`, a dist-tag some registry mirrors do not carry, so node-fetch is pinned
# to the 2.x line that tag names. A finished install (`.complete`) is reused.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
dir="${CORDON_VERDACCIO_DIR:-$repo/.cache/verdaccio}"
version=5.33.0
if [[ -f "$dir/.complete" && "$(cat "$dir/.complete")" == "$version" ]]; then
  echo "install-verdaccio: verdaccio $version present ($dir)"
  exit 0
fi
rm -rf "$dir"
mkdir -p "$dir"
printf '{"name":"cordon-test-registry","private":true,"overrides":{"node-fetch":"^2.7.0"}}\n' >"$dir/package.json"
(cd "$dir" && npm install --prefix "$dir" --no-audit --no-fund --no-save --no-package-lock --loglevel=error "verdaccio@$version")
test -f "$dir/node_modules/verdaccio/bin/verdaccio"
echo "$version" >"$dir/.complete"
echo "install-verdaccio: installed verdaccio $version into $dir"
