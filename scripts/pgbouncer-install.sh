#!/usr/bin/env bash
# Installs PgBouncer 1.24 into /usr/local/bin when no PgBouncer of 1.21 or later is on
# the PATH: the pooler tests put the service behind one in transaction mode.
#
# Why not `apt-get install pgbouncer`: Debian 12's package is 1.18, and transaction
# pooling only keeps protocol-level prepared statements (which sqlx uses for every
# query) from 1.21 on (`max_prepared_statements`). Debian 13's binary package needs a
# newer C library, so this builds Debian 13's source of it (the same upstream tarball,
# checked against the digest Debian's archive publishes) with Debian 12's libevent and
# OpenSSL. About 20 s on two cores.
set -euo pipefail

VERSION=1.24.1
SHA256=da72a3aba13072876d055a3e58dd4aba4a5de4ed6148e73033185245598fd3e0
URL="http://deb.debian.org/debian/pool/main/p/pgbouncer/pgbouncer_${VERSION}.orig.tar.gz"

installed_is_recent() {
  command -v pgbouncer >/dev/null || return 1
  local v
  v=$(pgbouncer --version 2>/dev/null | head -n1 | grep -oE '[0-9]+\.[0-9]+' | head -n1)
  [ -n "$v" ] || return 1
  local major=${v%%.*} minor=${v#*.}
  [ "$major" -gt 1 ] || { [ "$major" -eq 1 ] && [ "$minor" -ge 21 ]; }
}

if installed_is_recent; then
  exit 0
fi

echo "Installing PgBouncer $VERSION (built from Debian's source) for the pooler tests"
if ! pkg-config --exists libevent openssl 2>/dev/null; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libevent-dev libssl-dev pkg-config \
    >/dev/null
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
curl -fsSL --retry 3 -o "$work/pgbouncer.tar.gz" "$URL"
echo "$SHA256  $work/pgbouncer.tar.gz" | sha256sum -c --quiet
tar -xzf "$work/pgbouncer.tar.gz" -C "$work"
(
  cd "$work/pgbouncer-$VERSION"
  ./configure --prefix=/usr/local --without-cares --without-pam --without-systemd >/dev/null
  make -j"$(nproc)" >/dev/null
  install -m 0755 pgbouncer /usr/local/bin/pgbouncer
)
pgbouncer --version | head -n1
