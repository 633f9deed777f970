#!/bin/bash
# Lets the replica connect for streaming replication (first start of the primary only).
set -euo pipefail
echo "host replication quiz all scram-sha-256" >> "$PGDATA/pg_hba.conf"
