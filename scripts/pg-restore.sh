#!/usr/bin/env bash
# Restores a dump of scripts/pg-backup.sh into a fresh database:
#   bash scripts/pg-restore.sh DUMP_FILE TARGET_URL
# TARGET_URL names a database that does not exist yet, on a fresh or an existing
# cluster; it is created (through the cluster's `postgres` database), the dump restored
# in one transaction (all or nothing), and the planner's statistics gathered. Then start
# the service with DATABASE_URL=TARGET_URL: its migrations find the schema current.
set -euo pipefail
if [ $# -ne 2 ]; then
  echo "usage: $0 DUMP_FILE TARGET_URL" >&2
  exit 2
fi
dump=$1
target_url=$2
# postgres://user@host:port/dbname?params → the database name, and the same server's
# maintenance database.
without_params=${target_url%%\?*}
dbname=${without_params##*/}
params=""
if [ "$without_params" != "$target_url" ]; then params="?${target_url#*\?}"; fi
maintenance_url="${without_params%/*}/postgres${params}"
if ! [[ "$dbname" =~ ^[A-Za-z_][A-Za-z0-9_]*$ ]]; then
  echo "unexpected database name in TARGET_URL: $dbname" >&2
  exit 2
fi
psql --quiet --no-psqlrc --set=ON_ERROR_STOP=1 "$maintenance_url" \
  --command="CREATE DATABASE \"$dbname\""
pg_restore --no-owner --no-privileges --exit-on-error --single-transaction \
  --dbname="$target_url" "$dump"
psql --quiet --no-psqlrc --set=ON_ERROR_STOP=1 "$target_url" --command="ANALYZE"
echo "restored into $dbname"
