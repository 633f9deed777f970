#!/usr/bin/env bash
# Leaderboard benchmark: 1,000,000 weekly rows in one board on PostgreSQL; a top-20 page,
# the median player's own rank by SQL count and by the Redis index, an XP increment.
# Needs PostgreSQL (TEST_DATABASE_URL or postgres://postgres@127.0.0.1:5432/test) and
# Redis (REDIS_URL or redis://127.0.0.1:6379). ROWS=… changes the board size.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo run --release -q -p tests --bin leaderboard_bench
