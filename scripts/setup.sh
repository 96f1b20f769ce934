#!/usr/bin/env bash
# Cubist setup: installs what is missing on a Debian bookworm machine, then npm ci and the build (TypeScript and
# the native placement engine, compiled from engine/*.c with the machine's C compiler).
#
#   scripts/setup.sh              solver, NATS, Prometheus, Chromium, node modules, build
#   scripts/setup.sh --quick      skip the system packages (node modules and build only)
#
# Idempotent: every step checks first and says what it installs. Needs root (or sudo) only when a
# system package is missing. Kissat comes from Debian trixie (bookworm has none): the apt source
# reuses the mirror URI of this machine's own bookworm entry, and trixie is pinned at priority 50
# so that nothing else is ever upgraded from it.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$here"

quick=0
for arg in "$@"; do
  case "$arg" in
    --quick) quick=1 ;;
    -h|--help) sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "setup: unknown option $arg (try --help)" >&2; exit 2 ;;
  esac
done

say() { printf 'setup: %s\n' "$*"; }
die() { printf 'setup: error: %s\n' "$*" >&2; exit 1; }

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; fi
fi

apt_updated=0
apt_update() {
  if [ "$apt_updated" -eq 0 ]; then
    say "apt-get update"
    $SUDO apt-get update -qq
    apt_updated=1
  fi
}

# The mirror URI of this machine's own bookworm entry (deb822 debian.sources, or a classic sources.list line).
debian_mirror() {
  local f uri=""
  for f in /etc/apt/sources.list.d/debian.sources /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] || continue
    uri=$(awk '
      BEGIN { RS=""; FS="\n" }
      {
        u=""; s=""
        for (i = 1; i <= NF; i++) {
          if ($i ~ /^URIs:/)   { sub(/^URIs:[ \t]*/, "", $i); split($i, a, /[ \t]+/); u = a[1] }
          if ($i ~ /^Suites:/) { s = $i }
        }
        if (u != "" && s ~ /[ \t]bookworm([ \t]|$)/) { print u; exit }
      }' "$f")
    [ -n "$uri" ] && { echo "$uri"; return 0; }
  done
  if [ -f /etc/apt/sources.list ]; then
    uri=$(awk '$1 == "deb" && $3 == "bookworm" { print $2; exit }' /etc/apt/sources.list)
    [ -n "$uri" ] && { echo "$uri"; return 0; }
  fi
  return 1
}

ensure_trixie_source() {
  local list=/etc/apt/sources.list.d/cubist-trixie.list pref=/etc/apt/preferences.d/cubist-trixie
  if [ ! -f "$list" ]; then
    local uri
    uri=$(debian_mirror) || die "cannot find this machine's Debian mirror in /etc/apt (needed for the trixie kissat package)"
    say "adding apt source: deb $uri trixie main (pinned at priority 50: only packages asked for by name come from it)"
    echo "deb $uri trixie main" | $SUDO tee "$list" >/dev/null
    printf 'Package: *\nPin: release n=trixie\nPin-Priority: 50\n' | $SUDO tee "$pref" >/dev/null
    apt_updated=0
  fi
}

# install_pkg <command to check> <package> [trixie]
install_pkg() {
  local cmd=$1 pkg=$2 from=${3:-}
  if command -v "$cmd" >/dev/null 2>&1; then return 0; fi
  if [ -n "$from" ]; then ensure_trixie_source; fi
  apt_update
  say "installing $pkg${from:+ (from Debian $from)}"
  if [ -n "$from" ]; then
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq -t "$from" --no-install-recommends "$pkg" >/dev/null
  else
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "$pkg" >/dev/null
  fi
  command -v "$cmd" >/dev/null 2>&1 || die "$pkg installed but '$cmd' is not on PATH"
}

if [ "$quick" -eq 0 ]; then
  command -v apt-get >/dev/null 2>&1 || die "apt-get not found: install kissat, cadical, nats-server, prometheus and chromium by hand, then rerun with --quick"
  install_pkg kissat kissat trixie
  install_pkg drat-trim drat-trim trixie
  install_pkg python3 python3   # a certificate's check.sh re-derives its formula with encode.py (certify/encode.py)
  install_pkg cadical cadical
  install_pkg nats-server nats-server
  install_pkg prometheus prometheus
  install_pkg promtool prometheus
  install_pkg chromium chromium
  install_pkg ip iproute2
  install_pkg cc build-essential   # gcc, make and the C library headers: the native engine (engine/) is built from source
  install_pkg make make
fi

command -v node >/dev/null 2>&1 || die "node not found: Cubist needs Node.js 20"
major=$(node -p 'process.versions.node.split(".")[0]')
[ "$major" -ge 20 ] || die "Node.js $(node --version) is too old: Cubist needs Node.js 20 or newer"

# npm ci only when the lock file changed since the last install.
stamp=node_modules/.cubist-lock-sha
want=$(sha256sum package-lock.json | cut -d' ' -f1)
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  say "npm ci"
  npm ci --no-audit --no-fund --loglevel=error
  echo "$want" > "$stamp"
fi

say "building (npm run build)"
npm run --silent build
say "ready: kissat $(kissat --version 2>/dev/null || echo '?'), nats-server $(nats-server --version 2>/dev/null | awk '{print $2}' || echo '?'), node $(node --version)"
