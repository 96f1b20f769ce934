#!/bin/sh
# Installs what the Cubist image runs besides Node: Kissat, drat-trim, CaDiCaL, nats-server (for `cubist solve --workers N`)
# and tini (PID 1). Run as root during `docker build` (deploy/Dockerfile).
#
#   install-solvers.sh                 install
#   install-solvers.sh mirror [FILE]   print the bookworm mirror URI of FILE (default: the image's debian.sources)
#
# Kissat comes from Debian trixie (bookworm has none), with the recipe of scripts/setup.sh: the apt source reuses
# the mirror URI of the image's own bookworm entry in /etc/apt/sources.list.d/debian.sources, and trixie is
# pinned at priority 50 so that only packages asked for by name (-t trixie) ever come from it.
set -eu

SOURCES=/etc/apt/sources.list.d/debian.sources

# The URI of the first deb822 stanza whose Suites include bookworm.
mirror() {
  awk '
    BEGIN { RS=""; FS="\n" }
    {
      u=""; s=""
      for (i = 1; i <= NF; i++) {
        if ($i ~ /^URIs:/)   { sub(/^URIs:[ \t]*/, "", $i); split($i, a, /[ \t]+/); u = a[1] }
        if ($i ~ /^Suites:/) { s = $i }
      }
      if (u != "" && s ~ /[ \t]bookworm([ \t]|$)/) { print u; exit }
    }' "$1"
}

case "${1:-install}" in
  mirror)
    file=${2:-$SOURCES}
    uri=$(mirror "$file")
    [ -n "$uri" ] || { echo "install-solvers: no bookworm entry in $file" >&2; exit 1; }
    echo "$uri"
    exit 0
    ;;
  install) ;;
  *) echo "usage: install-solvers.sh [install | mirror [FILE]]" >&2; exit 2 ;;
esac

[ -f "$SOURCES" ] || { echo "install-solvers: $SOURCES not found (is this a Debian bookworm image?)" >&2; exit 1; }
uri=$(mirror "$SOURCES")
[ -n "$uri" ] || { echo "install-solvers: no bookworm mirror in $SOURCES" >&2; exit 1; }

export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# The current keyring first: it carries the trixie signing keys.
apt-get install -y -qq --no-install-recommends ca-certificates debian-archive-keyring tini cadical nats-server >/dev/null

echo "deb $uri trixie main" > /etc/apt/sources.list.d/cubist-trixie.list
printf 'Package: *\nPin: release n=trixie\nPin-Priority: 50\n' > /etc/apt/preferences.d/cubist-trixie
apt-get update -qq
# drat-trim checks the DRAT proofs of certified runs (cubist solve/run submit --certify); it needs libc6 >= 2.34.
apt-get install -y -qq --no-install-recommends -t trixie kissat drat-trim >/dev/null

# Only kissat and drat-trim may have come from trixie: everything else still says bookworm (deb12).
libc=$(dpkg-query -W -f '${Version}' libc6)
case "$libc" in
  *deb12*|2.36-*) ;;
  *) echo "install-solvers: libc6 $libc is not bookworm's: the trixie pin did not hold" >&2; exit 1 ;;
esac

command -v drat-trim >/dev/null || { echo "install-solvers: drat-trim is missing" >&2; exit 1; }
echo "kissat $(kissat --version), drat-trim, cadical $(cadical --version), $(nats-server --version), $(tini --version)"
apt-get clean
rm -rf /var/lib/apt/lists/*
