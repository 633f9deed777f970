#!/usr/bin/env bash
# Where the hot requests' CPU goes: player-api's instructions per request, counted by
# valgrind's callgrind (an instruction count repeats from run to run whatever else the
# machine does, where req/s here drift ±30 %), with each request's top functions.
#
#   bash bench/profile.sh [sqlite|postgres]       no argument: SQLite, then PostgreSQL
#
# Per engine: seeds $READERS players through a normal player-api (as bench/run.sh does),
# restarts it on the same database under callgrind (instrumentation off until asked), and for each
# endpoint turns counting on, drives $REQUESTS_S seconds of wrk at 4 connections, dumps
# the counts and divides by the requests served. Prints a table (instructions per
# request) and, per endpoint, the functions with the most inclusive instructions;
# callgrind's files stay in $RUN_DIR for callgrind_annotate. Only the service process
# is counted: on PostgreSQL its backends' work is not (bench/run.sh reports their CPU).
#
# Knobs: READERS (2000), REQUESTS_S (8), ENDPOINTS (a subset of "summary leaderboards me
# answer guest next"), RUN_DIR, BENCH_PG_URL, SERVICE_ADDR (127.0.0.1:18090), PROFILE_TARGET_DIR
# (the build directory; another one profiles another commit without disturbing this one),
# PROFILE_RUST_LOG (the service's RUST_LOG, e.g. sqlx::query=debug to see each statement
# in $RUN_DIR/player-api.log; it costs instructions of its own).
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
case "${1:-both}" in
  sqlite | postgres) ENGINES="$1" ;;
  both) ENGINES="sqlite postgres" ;;
  *) echo "usage: bash bench/profile.sh [sqlite|postgres]" >&2; exit 2 ;;
esac
READERS="${READERS:-2000}"
REQUESTS_S="${REQUESTS_S:-8}"
ENDPOINTS="${ENDPOINTS:-summary leaderboards me answer guest next}"
RUN_DIR="${RUN_DIR:-/tmp/perf/quiz-profile-$(date +%Y%m%d-%H%M%S)}"
SERVICE_ADDR="${SERVICE_ADDR:-127.0.0.1:18090}"
PG_BASE="${BENCH_PG_URL:-${TEST_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/test}}"
TARGET="${PROFILE_TARGET_DIR:-/var/tmp/quiz-game-target}"
mkdir -p "$RUN_DIR"
log() { echo "[$(date +%T)] $*" >&2; }

command -v valgrind >/dev/null || { echo "valgrind is missing" >&2; exit 1; }
command -v wrk >/dev/null || { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q wrk; }

PIDS=()
cleanup() {
  local rc=$? p
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  psql "$PG_BASE" -qc "DROP SCHEMA IF EXISTS quiz_profile CASCADE" >/dev/null 2>&1 || true
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

log "cargo build --release --bins"
(cd "$ROOT" && CARGO_TARGET_DIR="$TARGET" cargo build --release --bins -q)
SVC_BIN="$TARGET/release/player-api"
SEED_BIN="$TARGET/release/quiz_bench_seed"
STAMP=$(date +%s)

wait_up() { # seconds
  local i
  for i in $(seq 1 "$1"); do
    curl -sf "http://$SERVICE_ADDR/health" >/dev/null 2>&1 && return 0
    sleep 1
  done
  return 1
}

# Starts player-api (under callgrind when $1 = callgrind) on database $2.
start() { # plain|callgrind url out-prefix
  local wrap=()
  if [ "$1" = callgrind ]; then
    wrap=(valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file="$3.%p")
  fi
  env -u REDIS_URL -u RUST_LOG ${PROFILE_RUST_LOG:+RUST_LOG="$PROFILE_RUST_LOG"} APP_ENV=development LOG_FORMAT=json DEMO_CONTENT=true \
    PLAYER_API_ADDR="$SERVICE_ADDR" METRICS_ADDR=127.0.0.1:0 DATABASE_URL="$2" JOBS_ENABLED=false \
    JWT_SECRET="profile-player-secret-$STAMP-0123456789abcdef" \
    ADMIN_JWT_SECRET="profile-admin-secret-$STAMP-0123456789abcdef" \
    RATE_LIMIT_AUTH_PER_MINUTE=1000000000 RATE_LIMIT_PLAYER_WRITES_PER_MINUTE=1000000000 RULE_MAX_HEARTS=1000000 RULE_DAILY_ATTEMPTS=1000000 \
    FAIRPLAY_MIN_MS=0 FAIRPLAY_MEDIAN_PERCENT=0 FAIRPLAY_CLAIM_TOLERANCE_MS=600000 \
    "${wrap[@]}" "$SVC_BIN" >> "$RUN_DIR/player-api.log" 2>&1 &
  SVC_PID=$!
  PIDS+=("$SVC_PID")
  wait_up 300 || { log "player-api did not start"; tail -20 "$RUN_DIR/player-api.log" >&2; exit 1; }
}

wanted() { case " $ENDPOINTS " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }

# One endpoint: counting on for a wrk run at 4 connections, then dumped.
profile() { # engine name url [VAR=value...] (the wrk script's inputs)
  local engine="$1" name="$2" url="$3" out reqs instr
  shift 3
  wanted "$name" || return 0
  log "$engine: $name"
  callgrind_control -z "$SVC_PID" >/dev/null
  callgrind_control -i on "$SVC_PID" >/dev/null
  env "$@" WRK_THREADS=1 RUN_ID="profile-$name-$(date +%s%N)" \
    wrk -t1 -c4 -d"${REQUESTS_S}s" -s "$ROOT/bench/wrk/quiz.lua" "$url" > "$RUN_DIR/wrk_${engine}_$name.txt" 2>&1
  callgrind_control -i off "$SVC_PID" >/dev/null
  callgrind_control -d "$engine-$name" "$SVC_PID" >/dev/null
  sleep 1
  out=$(ls -t "$RUN_DIR"/callgrind.out.*.* 2>/dev/null | head -1)
  mv "$out" "$RUN_DIR/callgrind.$engine.$name"
  reqs=$(awk '/requests in/{print $1}' "$RUN_DIR/wrk_${engine}_$name.txt")
  instr=$(awk '/^totals:/{print $2}' "$RUN_DIR/callgrind.$engine.$name")
  printf '%s\t%s\t%s\t%s\n' "$engine" "$name" "$reqs" "$instr" >> "$RUN_DIR/results.tsv"
  callgrind_annotate --inclusive=yes "$RUN_DIR/callgrind.$engine.$name" 2>/dev/null \
    | grep -E '^ *[0-9,]+ \(' | head -60 > "$RUN_DIR/top.$engine.$name.txt" || true
}

run_engine() {
  local engine="$1" url
  if [ "$engine" = sqlite ]; then
    rm -f "$RUN_DIR/quiz.db"*
    url="sqlite:$RUN_DIR/quiz.db"
  else
    psql "$PG_BASE" -q -c "DROP SCHEMA IF EXISTS quiz_profile CASCADE" -c "CREATE SCHEMA quiz_profile" >/dev/null
    local sep='?'; case "$PG_BASE" in *\?*) sep='&' ;; esac
    url="$PG_BASE${sep}options=-c%20search_path%3Dquiz_profile&sslmode=disable"
  fi
  log "$engine: seeding $READERS players"
  start plain "$url" ""
  BENCH_BASE_URL="http://$SERVICE_ADDR" DATABASE_URL="$url" BENCH_PREFIX="readers-$(date +%s%N)" \
    "$SEED_BIN" readers "$READERS" "$RUN_DIR/tokens.txt" 2>> "$RUN_DIR/seed.log"
  [ "$engine" = postgres ] && psql "$PG_BASE" -qc "SET search_path = quiz_profile; ANALYZE" >/dev/null
  kill "$SVC_PID"; wait "$SVC_PID" 2>/dev/null || true

  log "$engine: player-api under callgrind"
  start callgrind "$url" "$RUN_DIR/callgrind.out.$engine"
  # not counted: SQLite's background checkpoint copies the seeding's WAL in its first
  # ticks, which would be charged to the first endpoint
  sleep 10
  export BENCH_BASE_URL="http://$SERVICE_ADDR" DATABASE_URL="$url"
  local S="http://$SERVICE_ADDR" T="$RUN_DIR/tokens.txt"
  profile "$engine" summary "$S/v1/progress/summary" WRK_MODE=get WRK_PATH=/v1/progress/summary TOKENS="$T"
  profile "$engine" leaderboards "$S/v1/leaderboards" WRK_MODE=get WRK_PATH=/v1/leaderboards TOKENS="$T"
  profile "$engine" me "$S/v1/leaderboards/me" WRK_MODE=get WRK_PATH=/v1/leaderboards/me TOKENS="$T"
  if wanted answer; then
    # answer lines for the run (challenges opened through this process: judged from memory)
    BENCH_PREFIX="ans-$(date +%s%N)" "$SEED_BIN" answers 3000 "$RUN_DIR/answers.tsv" 2>> "$RUN_DIR/seed.log"
    profile "$engine" answer "$S/v1/challenges/answer" WRK_MODE=answer ANSWERS="$RUN_DIR/answers.tsv"
  fi
  profile "$engine" guest "$S/v1/auth/guest" WRK_MODE=guest
  profile "$engine" next "$S/v1/challenges/next" WRK_MODE=get WRK_PATH="/v1/challenges/next?trackId=world-geography" TOKENS="$T"
  unset BENCH_BASE_URL DATABASE_URL
  kill "$SVC_PID"; wait "$SVC_PID" 2>/dev/null || true
}

for e in $ENGINES; do run_engine "$e"; done

echo
echo "| engine | endpoint | requests | instructions per request |"
echo "|---|---|---:|---:|"
awk -F'\t' '{printf "| %s | %s | %s | %\047d |\n", $1, $2, $3, ($3 > 0 ? $4 / $3 : 0)}' "$RUN_DIR/results.tsv"
echo
echo "Top functions (inclusive) per endpoint: $RUN_DIR/top.<engine>.<endpoint>.txt"
log "raw results in $RUN_DIR"
