#!/usr/bin/env bash
# Every test, on a fresh machine: starts PostgreSQL and Redis when they are down,
# installs Debian's Chromium, ChromeDriver and a Chinese font for the browser tests,
# PgBouncer for the pooler tests (scripts/pgbouncer-install.sh) and
# moto (an S3-protocol server for the media store's tests) when missing, then runs
# `cargo test --workspace` (unit tests, both engines' end-to-end tests, the browser
# test). Extra arguments go to cargo test (e.g. `bash scripts/test.sh -p tests -- leagues::`).
set -euo pipefail
cd "$(dirname "$0")/.."

if ! pg_isready -h 127.0.0.1 -p 5432 -q; then
  echo "PostgreSQL is down; starting it"
  pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -n1)" main start
  for _ in $(seq 1 60); do pg_isready -h 127.0.0.1 -p 5432 -q && break; sleep 1; done
fi
pg_isready -h 127.0.0.1 -p 5432

if command -v redis-server >/dev/null && ! redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1; then
  echo "Redis is down; starting it"
  redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no \
    --dir /var/lib/redis --logfile /var/log/redis/ci.log
fi

# The console's end-to-end tests drive Debian's headless Chromium through chromedriver;
# its Chinese run's screenshots need a font with Chinese characters.
if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null \
  || ! fc-list :lang=zh 2>/dev/null | grep -q .; then
  echo "Installing Chromium, ChromeDriver and a Chinese font for the browser tests"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver \
    fonts-wqy-microhei >/dev/null
fi

# The pooler tests put the service behind PgBouncer (1.21 or later) in transaction mode.
bash scripts/pgbouncer-install.sh

# The media store's S3 tests talk to a real S3-protocol server: moto in server mode.
MOTO_VERSION=5.2.1
if ! python3 -c "import moto.server, sys; sys.exit(moto.__version__ != '$MOTO_VERSION')" 2>/dev/null; then
  echo "Installing moto[server] $MOTO_VERSION for the S3 tests"
  python3 -m pip install -q --disable-pip-version-check "moto[server]==$MOTO_VERSION"
fi

if [ $# -eq 0 ]; then
  exec cargo test --workspace
fi
exec cargo test "$@"
