#!/usr/bin/env bash
# Backs a PostgreSQL database of the service up while the game runs:
#   bash scripts/pg-backup.sh SOURCE_URL DUMP_FILE
# pg_dump reads one snapshot (a repeatable-read transaction), so the dump is the
# database as of one instant, every answer acknowledged before it began included, and
# writers go on meanwhile. The custom format is compressed and restores in parallel.
# The dump is written beside DUMP_FILE and renamed when whole. For point-in-time
# recovery, use base backups and WAL archiving instead (README, Backups).
set -euo pipefail
if [ $# -ne 2 ]; then
  echo "usage: $0 SOURCE_URL DUMP_FILE" >&2
  exit 2
fi
source_url=$1
dump=$2
if [ -e "$dump" ]; then
  echo "$dump exists: a backup never overwrites" >&2
  exit 1
fi
pg_dump --format=custom --no-owner --no-privileges --file="$dump.partial" "$source_url"
mv "$dump.partial" "$dump"
echo "backup written: $dump"
