# Shared by the test preparation scripts (sourced, not run): every change they make to the machine
# outside the clone goes through `machine_change`, so each is printed as it is made, and Debian
# packages go through `apt_install`, which waits for another apt or dpkg to finish instead of
# failing on its lock and, when it fails, says why in apt's own words.
# shellcheck shell=bash

# `machine_change WHO WHAT`: prints "WHO: changing the machine: WHAT" before the change is made.
machine_change() {
  echo "$1: changing the machine: $2" >&2
}

# `as_root CMD…`: runs CMD as root (directly, or through non-interactive sudo); returns 126 when
# neither is possible.
as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"
  elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then sudo "$@"
  else return 126
  fi
}

# `apt_missing PKG…`: prints the packages of PKG… that dpkg does not have installed.
apt_missing() {
  local p
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || echo "$p"
  done
}

# `apt_run WHO LOG CMD…`: runs an apt-get command as root; while another apt or dpkg holds its
# lock (apt says "Could not get lock"), waits and tries again for up to
# $CORDON_APT_LOCK_WAIT seconds (default 900). Its output goes to LOG.
apt_run() {
  local who="$1" log="$2"; shift 2
  local waited=0 limit="${CORDON_APT_LOCK_WAIT:-900}" rc
  while :; do
    rc=0
    # DPkg::Lock::Timeout makes apt itself wait for the dpkg lock; the loop covers the lists lock
    # of `apt-get update`, which it does not wait for.
    as_root env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout="$limit" "$@" >"$log" 2>&1 || rc=$?
    [ "$rc" = 0 ] && return 0
    [ "$rc" = 126 ] && return 126
    if grep -q 'Could not get lock' "$log" && [ "$waited" -lt "$limit" ]; then
      [ "$waited" = 0 ] && echo "$who: waiting for another package manager: $(grep -m1 'Could not get lock' "$log" | sed 's/^E: //')" >&2
      sleep 5; waited=$((waited + 5))
      continue
    fi
    return "$rc"
  done
}

# `apt_install WHO [--no-recommends] PKG…`: installs the Debian packages of PKG… that are missing.
# Returns 0 when all are installed; otherwise prints the reason (no apt-get, neither root nor sudo,
# or apt's own error lines) as "WHO: cannot install …: REASON" and returns 1.
apt_install() {
  local who="$1"; shift
  local missing log rc=0 recommends=()
  if [ "${1:-}" = --no-recommends ]; then recommends=(--no-install-recommends); shift; fi
  mapfile -t missing < <(apt_missing "$@")
  [ "${#missing[@]}" = 0 ] && return 0
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "$who: cannot install ${missing[*]}: there is no apt-get on this machine" >&2; return 1
  fi
  log="$(mktemp)"
  machine_change "$who" "apt-get install ${missing[*]} (Debian packages)"
  apt_run "$who" "$log" update -qq || rc=$?
  [ "$rc" = 0 ] && { apt_run "$who" "$log" install -y -qq "${recommends[@]}" "${missing[@]}" || rc=$?; }
  if [ "$rc" = 126 ]; then
    echo "$who: cannot install ${missing[*]}: this needs root or password-less sudo" >&2
  elif [ "$rc" != 0 ]; then
    echo "$who: cannot install ${missing[*]}: apt-get failed (exit $rc):" >&2
    if grep -qE '^(E|Err):' "$log"; then grep -E '^(E|Err):' "$log" | tail -5 | sed 's/^/  /' >&2; else tail -5 "$log" | sed 's/^/  /' >&2; fi
  fi
  rm -f "$log"
  [ "$rc" = 0 ]
}
