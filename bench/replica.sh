#!/usr/bin/env bash
# Board pages with and without a read replica:
#
#   bash bench/replica.sh
#
# Makes a PostgreSQL primary and a streaming replica of its own (initdb, then
# `pg_basebackup -R`, each on a free port, in $RUN_DIR), builds the release player-api,
# seeds $READERS players through the API (guest, region, one challenge each: rows on
# the benchmark region's board and the topic board), then measures GET /v1/leaderboards
# (each request with a random player's token: the first page of the board they are on,
# one board, as in a region's evening rush) twice: the service
# on the primary alone, then with DATABASE_REPLICA_URL. Each: a ${WARM_S:-3} s warm-up and
# a ${RUN_S:-10} s wrk run at $CONNS connections, and the board-page statements each
# server ran in it (pg_stat_statements). Prints a Markdown table; raw output in $RUN_DIR.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
PROJECT_TARGET=/var/tmp/quiz-game-target
READERS="${READERS:-2000}"
WARM_S="${WARM_S:-3}"
RUN_S="${RUN_S:-10}"
CONNS="${CONNS:-64}"
SERVICE_ADDR="${SERVICE_ADDR:-127.0.0.1:18090}"
RUN_DIR="${RUN_DIR:-/tmp/perf/quiz-replica-$(date +%Y%m%d-%H%M%S)}"
export BENCH_WRK_DIR="$ROOT/bench/wrk"
PGBIN="$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n1)"
PIDS=()

log() { echo "[$(date +%T)] $*" >&2; }
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_port() { for _ in $(seq 1 "$2"); do (exec 3<>"/dev/tcp/${1%:*}/${1#*:}") 2>/dev/null && return 0; sleep 1; done; return 1; }

command -v wrk >/dev/null || { log "apt-get install wrk"; apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q wrk; }
mkdir -p "$RUN_DIR"
[ "$(id -u)" = 0 ] && chown postgres: "$RUN_DIR"
PRIMARY_PORT=$(free_port)
REPLICA_PORT=$(free_port)
OPTS="-k $RUN_DIR -c listen_addresses=127.0.0.1 -c shared_preload_libraries=pg_stat_statements -c fsync=off"
cleanup() {
  local p
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  as_pg "$PGBIN/pg_ctl" -D "$RUN_DIR/replica" -m immediate stop >/dev/null 2>&1 || true
  as_pg "$PGBIN/pg_ctl" -D "$RUN_DIR/primary" -m immediate stop >/dev/null 2>&1 || true
}
trap cleanup EXIT

log "primary on $PRIMARY_PORT, replica on $REPLICA_PORT ($RUN_DIR)"
as_pg "$PGBIN/initdb" -D "$RUN_DIR/primary" -A trust -U postgres -E UTF8 --no-sync >/dev/null
as_pg "$PGBIN/pg_ctl" -D "$RUN_DIR/primary" -l "$RUN_DIR/primary.log" -o "-p $PRIMARY_PORT $OPTS" -w start >/dev/null
PRIMARY="postgres://postgres@127.0.0.1:$PRIMARY_PORT"
REPLICA="postgres://postgres@127.0.0.1:$REPLICA_PORT"
psql "$PRIMARY/postgres" -q -c "CREATE DATABASE quiz" >/dev/null
psql "$PRIMARY/quiz" -q -c "CREATE EXTENSION pg_stat_statements" >/dev/null
as_pg "$PGBIN/pg_basebackup" -h 127.0.0.1 -p "$PRIMARY_PORT" -U postgres -D "$RUN_DIR/replica" -R -X stream -c fast --no-sync
as_pg "$PGBIN/pg_ctl" -D "$RUN_DIR/replica" -l "$RUN_DIR/replica.log" -o "-p $REPLICA_PORT $OPTS" -w start >/dev/null

log "cargo build --release (player-api, quiz_bench_seed)"
(cd "$ROOT" && CARGO_TARGET_DIR="$PROJECT_TARGET" cargo build --release -q -p player-api --bin player-api -p tests --bin quiz_bench_seed)
SVC_BIN="$PROJECT_TARGET/release/player-api"
SEED_BIN="$PROJECT_TARGET/release/quiz_bench_seed"
STAMP=$(date +%s)

start_service() { # [VAR=value...]
  env -u REDIS_URL -u RUST_LOG MIMALLOC_PURGE_DELAY=0 MIMALLOC_ARENA_EAGER_COMMIT=0 \
    APP_ENV=development LOG_FORMAT=json DEMO_CONTENT=true JOBS_ENABLED=false \
    PLAYER_API_ADDR="$SERVICE_ADDR" METRICS_ADDR=127.0.0.1:0 DATABASE_URL="$PRIMARY/quiz?sslmode=disable" \
    JWT_SECRET="bench-player-secret-$STAMP-0123456789abcdef" \
    ADMIN_JWT_SECRET="bench-admin-secret-$STAMP-0123456789abcdef" \
    RATE_LIMIT_AUTH_PER_MINUTE=1000000000 RATE_LIMIT_PLAYER_WRITES_PER_MINUTE=1000000000 RULE_MAX_HEARTS=1000000 RULE_DAILY_ATTEMPTS=1000000 \
    FAIRPLAY_MIN_MS=0 FAIRPLAY_MEDIAN_PERCENT=0 FAIRPLAY_CLAIM_TOLERANCE_MS=600000 "$@" \
    "$SVC_BIN" >> "$RUN_DIR/player-api.log" 2>&1 &
  SVC_PID=$!
  PIDS+=("$SVC_PID")
  wait_port "$SERVICE_ADDR" 60 || { log "player-api did not start"; tail -20 "$RUN_DIR/player-api.log" >&2; exit 1; }
}
stop_service() { kill "$SVC_PID"; wait "$SVC_PID" 2>/dev/null || true; }
page_calls() { # url: board-page statements run there
  psql "$1/quiz" -Atc "SELECT COALESCE(SUM(calls), 0) FROM pg_stat_statements WHERE query LIKE '%FROM weekly_xp x%' AND query NOT LIKE '%pg_stat_statements%'"
}

start_service
log "seeding $READERS players"
BENCH_BASE_URL="http://$SERVICE_ADDR" DATABASE_URL="$PRIMARY/quiz" BENCH_PREFIX="replica-$STAMP" \
  "$SEED_BIN" readers "$READERS" "$RUN_DIR/tokens.txt" 2>> "$RUN_DIR/seed.log"
psql "$PRIMARY/quiz" -q -c "VACUUM (ANALYZE)" >/dev/null
stop_service

ROWS=()
for mode in primary replica; do
  if [ "$mode" = replica ]; then
    start_service DATABASE_REPLICA_URL="$REPLICA/quiz?sslmode=disable" REPLICA_MAX_LAG_MS=2000
  else
    start_service
  fi
  sleep 2 # the replica watcher's first looks
  wrk_run() { # phase seconds
    WRK_MODE=get WRK_PATH=/v1/leaderboards TOKENS="$RUN_DIR/tokens.txt" RUN_ID="$mode-$1-$(date +%s%N)" \
      wrk --latency -t2 -c"$CONNS" -d"$2s" -s "$BENCH_WRK_DIR/quiz.lua" "http://$SERVICE_ADDR/v1/leaderboards" \
      > "$RUN_DIR/wrk_${mode}_$1.txt" 2>&1
  }
  wrk_run warm "$WARM_S"
  p0=$(page_calls "$PRIMARY"); r0=$(page_calls "$REPLICA")
  wrk_run run "$RUN_S"
  p1=$(page_calls "$PRIMARY"); r1=$(page_calls "$REPLICA")
  f="$RUN_DIR/wrk_${mode}_run.txt"
  rps=$(awk '/^Requests\/sec/{printf "%d", $2}' "$f")
  p50=$(awk '$1=="50%"{print $2}' "$f")
  p99=$(awk '$1=="99%"{print $2}' "$f")
  non2xx=$(awk '/^non2xx_hook:/{print $2}' "$f"); non2xx=${non2xx:-0}
  ROWS+=("| $mode | $CONNS | $rps | $p50 | $p99 | $non2xx | $(( (p1 - p0) / RUN_S )) | $(( (r1 - r0) / RUN_S )) |")
  stop_service
done

echo
echo "Board pages (GET /v1/leaderboards), $READERS players on one region's board, $(nproc) cores, $(date -u +%F):"
echo
echo "| reads on | connections | req/s | p50 | p99 | non-2xx | page reads/s on the primary | page reads/s on the replica |"
echo "|---|---|---|---|---|---|---|---|"
printf '%s\n' "${ROWS[@]}"
