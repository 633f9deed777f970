#!/usr/bin/env bash
# Scale benchmark: does a request cost the same at a million players as at a thousand?
#
#   bash bench/scale.sh [sqlite|postgres]        no argument: SQLite, then PostgreSQL
#
# Per engine and size (small, then large): a fresh database migrated by the release
# admin-console, bulk rows from bench/scale/seed.sql (plain SQL through psql or sqlite3,
# not the API: a million players take about a minute), ANALYZE, then both release
# binaries and bench/scale/timing.py, which times each endpoint one request at a time
# (SAMPLES after 10 warm-up requests) and prints p50/p99. The leaderboard requests run a
# second time against a player-api with the Redis rank index (REDIS_URL). At the end:
# the table of p50/p99 at both sizes and large ÷ small, printed and written into
# BENCHMARKS.md between the scale markers of that engine (NO_REPORT=1: left alone).
#
# Sizes (players, published questions, answers, weekly rows of one region board,
# audit-log and feedback rows): small 1k/100/10k/1k/1k; large on PostgreSQL
# 1M/100k/20M/1M/1M, on SQLite 100k/20k/2M/100k/100k. Knobs: SAMPLES (200), SIZES
# ("small large"), SCALE_PG_URL (default postgres://postgres@127.0.0.1:5432/test; the run
# works in schema quiz_scale, dropped at the end), RUN_DIR, REDIS_URL
# (redis://127.0.0.1:6379; keys under a per-run prefix), ONLY (endpoint subset),
# LARGE_QUESTIONS (the large size's published questions: issue 54's pick at 200,000).
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
case "${1:-both}" in
  sqlite | postgres) ENGINES="$1" ;;
  both) ENGINES="sqlite postgres" ;;
  *) echo "usage: bash bench/scale.sh [sqlite|postgres]" >&2; exit 2 ;;
esac
export SAMPLES="${SAMPLES:-200}"
SIZES="${SIZES:-small large}"
PG_BASE="${SCALE_PG_URL:-postgres://postgres@127.0.0.1:5432/test}"
REDIS="${REDIS_URL:-redis://127.0.0.1:6379}"
RUN_DIR="${RUN_DIR:-/tmp/perf/quiz-scale-$(date +%Y%m%d-%H%M%S)}"
TARGET="${CARGO_TARGET_DIR:-/var/tmp/quiz-game-target}"
mkdir -p "$RUN_DIR"
log() { echo "[$(date +%T)] $*" >&2; }

PIDS=()
cleanup() {
  local rc=$? p
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  psql "$PG_BASE" -qc "DROP SCHEMA IF EXISTS quiz_scale CASCADE" >/dev/null 2>&1 || true
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
stop_all() { local p; for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; PIDS=(); }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_healthy() {
  for _ in $(seq 1 600); do curl -fs "$1/health" >/dev/null && return 0; sleep 0.2; done
  log "$1 did not start"; return 1
}

log "cargo build --release -p player-api -p admin-console (CARGO_TARGET_DIR=$TARGET)"
(cd "$ROOT" && CARGO_TARGET_DIR="$TARGET" cargo build --release -q -p player-api -p admin-console)

# size name -> "players questions answers weekly logs heavy heavy_answers"
dims() {
  case "$1:$2" in
    *:small) echo "1000 100 10000 1000 1000 1 10000" ;;
    postgres:large) echo "1000000 ${LARGE_QUESTIONS:-100000} 20000000 1000000 1000000 100 10000" ;;
    sqlite:large) echo "100000 ${LARGE_QUESTIONS:-20000} 2000000 100000 100000 100 10000" ;;
  esac
}

# Beijing time: this week's Monday
week_start=$(TZ=Asia/Shanghai date -d "$(TZ=Asia/Shanghai date +%F) -$(( $(TZ=Asia/Shanghai date +%u) - 1 )) days" +%F)
prev_week_start=$(date -d "$week_start -7 days" +%F)
now_ms=$(( $(date +%s) * 1000 ))
today=$(TZ=Asia/Shanghai date +%F)
RESULTS="$RUN_DIR/results.tsv"
printf 'engine\tsize\tendpoint\tsamples\tp50_ms\tp99_ms\n' > "$RESULTS"

for engine in $ENGINES; do
  for size in $SIZES; do
    read -r players questions answers weekly logs heavy heavy_answers <<<"$(dims "$engine" "$size")"
    dir="$RUN_DIR/$engine-$size"; mkdir -p "$dir"
    if [ "$engine" = postgres ]; then
      psql "$PG_BASE" -qc "DROP SCHEMA IF EXISTS quiz_scale CASCADE" -c "CREATE SCHEMA quiz_scale" >/dev/null
      db_url="$PG_BASE?options=-c%20search_path%3Dquiz_scale"
      sql_cmd=(psql "$db_url" -qAt -v ON_ERROR_STOP=1 -c)
    else
      rm -f "$dir/quiz.db"*
      db_url="sqlite:$dir/quiz.db"
      sql_cmd=(sqlite3 -bail -cmd ".timeout 10000" "$dir/quiz.db")
    fi
    aport=$(free_port); pport=$(free_port)
    export DATABASE_URL="$db_url" DEMO_CONTENT=false RUST_LOG=warn LOG_FORMAT=json \
      ADMIN_BOOTSTRAP_USERNAME=scale ADMIN_BOOTSTRAP_PASSWORD=Scale-pass-1 \
      ADMIN_USERNAME=scale ADMIN_PASSWORD=Scale-pass-1 \
      ADMIN_CONSOLE_ADDR=127.0.0.1:$aport PLAYER_API_ADDR=127.0.0.1:$pport METRICS_ADDR=127.0.0.1:0 \
      RATE_LIMIT_AUTH_PER_MINUTE=100000000 RATE_LIMIT_PLAYER_WRITES_PER_MINUTE=100000000 RULE_DAILY_ATTEMPTS=1000000 \
      PLAYERS="$players" HEAVY="$heavy"
    unset REDIS_URL
    log "$engine $size: migrating"
    "$TARGET/release/admin-console" >"$dir/admin-migrate.log" 2>&1 & PIDS+=($!)
    wait_healthy "http://127.0.0.1:$aport"
    stop_all

    log "$engine $size: seeding $players players, $questions questions, $answers answers"
    sessions=$(( answers / 5 )); heavy_sessions=$(( heavy_answers / 5 ))
    sed -e "s/@PLAYERS@/$players/g" -e "s/@QUESTIONS@/$questions/g" -e "s/@WEEKLY@/$weekly/g" \
        -e "s/@LOGS@/$logs/g" -e "s/@HEAVY@/$heavy/g" -e "s/@HEAVY_ANSWERS@/$heavy_answers/g" \
        -e "s/@SESSIONS@/$sessions/g" -e "s/@HEAVY_SESSIONS@/$heavy_sessions/g" \
        -e "s/@WEEK_START@/$week_start/g" -e "s/@PREV_WEEK_START@/$prev_week_start/g" \
        -e "s/@NOW@/$now_ms/g" -e "s/@TODAY@/$today/g" \
        "$ROOT/bench/scale/seed.sql" > "$dir/seed.sql"
    start=$(date +%s)
    if [ "$engine" = postgres ]; then
      psql "$db_url" -q -v ON_ERROR_STOP=1 -1 -f "$dir/seed.sql"
      psql "$db_url" -qAt >/dev/null <<'SQL'
SELECT format('VACUUM (ANALYZE) %I.%I', schemaname, tablename) FROM pg_tables
 WHERE schemaname = 'quiz_scale' \gexec
CHECKPOINT;
SQL
    else
      { echo "BEGIN;"; cat "$dir/seed.sql"; echo "COMMIT;"; echo "ANALYZE;"; } | sqlite3 -bail "$dir/quiz.db" >/dev/null
    fi
    log "$engine $size: seeded in $(( $(date +%s) - start )) s"

    "$TARGET/release/admin-console" >"$dir/admin.log" 2>&1 & PIDS+=($!)
    "$TARGET/release/player-api" >"$dir/player.log" 2>&1 & PIDS+=($!)
    wait_healthy "http://127.0.0.1:$aport"; wait_healthy "http://127.0.0.1:$pport"
    python3 "$ROOT/bench/scale/timing.py" "http://127.0.0.1:$pport" "http://127.0.0.1:$aport" "${sql_cmd[@]}" \
      | sed "s/^/$engine\t$size\t/" >> "$RESULTS"
    stop_all

    log "$engine $size: the leaderboard with the Redis rank index"
    REDIS_URL="$REDIS" REDIS_KEY_PREFIX="scale-$(date +%s%N)" "$TARGET/release/player-api" >"$dir/player-redis.log" 2>&1 & PIDS+=($!)
    "$TARGET/release/admin-console" >"$dir/admin-redis.log" 2>&1 & PIDS+=($!)
    wait_healthy "http://127.0.0.1:$pport"; wait_healthy "http://127.0.0.1:$aport"
    ONLY="board_page board_own_rank board_around board_league_around" LABEL_SUFFIX="+redis" \
      python3 "$ROOT/bench/scale/timing.py" "http://127.0.0.1:$pport" "http://127.0.0.1:$aport" "${sql_cmd[@]}" \
      | sed "s/^/$engine\t$size\t/" >> "$RESULTS"
    stop_all
  done
done

python3 "$ROOT/bench/scale/report.py" "$RESULTS" "$ROOT/BENCHMARKS.md" ${NO_REPORT:+--no-write}
log "raw results: $RESULTS"
