#!/usr/bin/env bash
# Load benchmark of player-api against the reference stack of ../shared/bench-baseline
# (axbench: axum + sqlx + HS256 JWT), both measured in the same run on the same engine.
#
#   bash bench/run.sh [sqlite|postgres]        no argument: SQLite, then PostgreSQL
#
# Per engine: builds the release binaries (shared target dir /var/tmp/quiz-game-target)
# and axbench (outside the repo, in $BUILD, as the baseline's 20_http.sh does); starts
# player-api on a fresh database with the demo content and axbench beside it; seeds
# $READERS players through the API (bench/../tests/src/bin/quiz_bench_seed.rs); then for
# each endpoint and its baseline, at 64 and at 4 connections: a ${WARM_S:-3} s wrk warm-up
# and a ${RUN_S:-10} s measured wrk run (-t2 --latency). Records req/s, p50/p99, non-2xx
# (a wrk `response` hook, status >= 300), socket errors, server CPU per request and the
# service's peak RSS (VmHWM, reset per endpoint through /proc/PID/clear_refs), and on
# PostgreSQL the CPU of the server backends serving each side (by application_name).
# Prints the tables and writes them into BENCHMARKS.md (bench/report.py). Raw: $RUN_DIR.
#
# PostgreSQL: the local cluster runs with autovacuum = off (CI's conf.d/90-ci.conf), so
# nothing would ever ANALYZE the tables (plans cached while they were nearly empty, with
# sequential scans, would stay) nor VACUUM them (the visibility map stays empty, so every
# index-only scan, such as a rank count, visits the heap for each row); the script runs
# VACUUM (ANALYZE) on the service's tables after each seeding step, as autovacuum would
# after that many inserts, and axbench ANALYZEs its own tables after seeding them.
#
# Knobs: WARM_S, RUN_S, WRK_THREADS (2), CONNS ("64 4"), READERS (2000), RUN_DIR,
# BENCH_PG_URL (default TEST_DATABASE_URL or postgres://postgres@127.0.0.1:5432/test;
# the run works in schemas quiz_bench and quiz_bench_axbench, dropped at the end),
# SERVICE_ADDR (127.0.0.1:18080), SERVICE_METRICS_ADDR (127.0.0.1:18081: its /metrics,
# read for the answers judged from memory), AX_ADDR (127.0.0.1:13000), BENCH_RUST_LOG (the
# service's RUST_LOG; unset: its default), ENDPOINTS (a subset of "json health read
# summary leaderboards me write answer answer_nomem guest"), NO_REPORT=1 (leave BENCHMARKS.md alone),
# BENCH_TARGET_DIR (where the release binaries are built; default the shared target dir).
# Every process this script starts is stopped by its PID on exit.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BASELINE_DIR="$(cd "${BASELINE_DIR:-$ROOT/../shared/bench-baseline}" && pwd)"
case "${1:-both}" in
  sqlite | postgres) ENGINES="$1" ;;
  both) ENGINES="sqlite postgres" ;;
  *) echo "usage: bash bench/run.sh [sqlite|postgres]" >&2; exit 2 ;;
esac

export WARM_S="${WARM_S:-3}" RUN_S="${RUN_S:-10}" WRK_THREADS="${WRK_THREADS:-2}"
CONNS="${CONNS:-64 4}"
READERS="${READERS:-2000}"
ENDPOINTS="${ENDPOINTS:-json health read summary leaderboards me write answer answer_nomem guest}"
RUN_DIR="${RUN_DIR:-/tmp/perf/quiz-bench-$(date +%Y%m%d-%H%M%S)}"
export OUT="$RUN_DIR"                               # common.sh creates it
export BUILD="${BUILD:-/tmp/perf/axbench-build}"    # axbench is built here, never in the repo
# shellcheck source=/dev/null
. "$BASELINE_DIR/common.sh"                         # log, wait_port, stop_pid, rss_peak_kb, cpu ticks
unset PGUSER PGPASSWORD                             # common.sh's bench role; our URLs name their user
# the project's one shared target dir; BENCH_TARGET_DIR builds the release binaries in
# another (so a benchmark need not wait for the lock of a test run in the shared one)
PROJECT_TARGET="${BENCH_TARGET_DIR:-/var/tmp/quiz-game-target}"
SERVICE_ADDR="${SERVICE_ADDR:-127.0.0.1:18080}"
SERVICE_METRICS_ADDR="${SERVICE_METRICS_ADDR:-127.0.0.1:18081}"  # player-api's /metrics
AX_ADDR="${AX_ADDR:-127.0.0.1:13000}"
PG_BASE="${BENCH_PG_URL:-${TEST_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/test}}"
export BENCH_WRK_DIR="$ROOT/bench/wrk"
RESULTS="$RUN_DIR/results.tsv"
ENVFILE="$RUN_DIR/environment.txt"

# --- every process we start, stopped by PID on exit --------------------------------------
PIDS=()
PG_SCHEMAS=0
forget_pid() { local keep=() p; for p in "${PIDS[@]}"; do [ "$p" != "$1" ] && keep+=("$p"); done; PIDS=("${keep[@]}"); }
cleanup() {
  local rc=$? p
  for p in "${PIDS[@]}"; do stop_pid "$p"; done
  if [ "$PG_SCHEMAS" = 1 ]; then
    psql "$PG_BASE" -qc "DROP SCHEMA IF EXISTS quiz_bench CASCADE" -c "DROP SCHEMA IF EXISTS quiz_bench_axbench CASCADE" >/dev/null 2>&1 || true
  fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

port_free() { ! (exec 3<>"/dev/tcp/${1%:*}/${1#*:}") 2>/dev/null; }
with_schema() { # url schema -> url whose connections use that schema
  local sep='?'; case "$1" in *\?*) sep='&' ;; esac
  echo "$1${sep}options=-c%20search_path%3D$2"
}
to_ms() { awk '{v=$1; if (v ~ /us$/) {sub(/us$/,"",v); print v/1000} else if (v ~ /ms$/) {sub(/ms$/,"",v); print v+0} else if (v ~ /s$/) {sub(/s$/,"",v); print v*1000} else print v}'; }
rate_of() { awk '/^Requests\/sec/{printf "%d\n", $2}' "$1"; }

# --- tools and builds ----------------------------------------------------------------------
command -v wrk >/dev/null || { log "apt-get install wrk"; apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q wrk; }
for p in "$SERVICE_ADDR" "$SERVICE_METRICS_ADDR" "$AX_ADDR"; do port_free "$p" || { log "$p is in use; set SERVICE_ADDR / SERVICE_METRICS_ADDR / AX_ADDR"; exit 1; }; done

log "cargo build --release --bins (CARGO_TARGET_DIR=$PROJECT_TARGET; may wait for the lock)"
(cd "$ROOT" && CARGO_TARGET_DIR="$PROJECT_TARGET" cargo build --release --bins)
SVC_BIN="$PROJECT_TARGET/release/player-api"
SEED_BIN="$PROJECT_TARGET/release/quiz_bench_seed"

log "building axbench in $BUILD (as $BASELINE_DIR/20_http.sh does)"
mkdir -p "$BUILD"
cp -rp "$BASELINE_DIR/axbench/Cargo.toml" "$BASELINE_DIR/axbench/Cargo.lock" "$BASELINE_DIR/axbench/src" "$BUILD/"
(cd "$BUILD" && env -u CARGO_TARGET_DIR cargo build --release --locked -q)
AX_BIN="$BUILD/target/release/axbench"
AX_TOKENS="$RUN_DIR/axbench_tokens.txt"
"$AX_BIN" gen-tokens 10000 > "$AX_TOKENS"

steal0=$(awk '/^cpu /{print $9, $2+$3+$4+$5+$6+$7+$8+$9}' /proc/stat)
{
  echo "date: $(date -u +%FT%TZ)"
  echo "command: bash bench/run.sh ${1:-}"
  echo "engines: $ENGINES"
  echo "cpus: $(nproc)"
  grep -m1 'model name' /proc/cpuinfo | sed 's/^model name\s*:\s*/cpu: /'
  free -m | awk '/^Mem:/{printf "mem_total_mib: %d\n", $2}'
  echo "kernel: $(uname -r)"
  echo "postgres: $(psql "$PG_BASE" -Atc 'SHOW server_version' 2>/dev/null || echo unavailable)"
  echo "wrk: $(wrk --version 2>&1 | head -1 | awk '{print $1, $2}')"
  echo "rustc: $(rustc --version)"
  echo "git: $(cd "$ROOT" && git rev-parse --short HEAD) ($(cd "$ROOT" && git status --porcelain | wc -l) paths changed or untracked in the working tree)"
  echo "warm_s: $WARM_S"; echo "run_s: $RUN_S"; echo "wrk_threads: $WRK_THREADS"; echo "readers: $READERS"
  echo "load_start: $(uptime | sed 's/.*load average: //')"
} > "$ENVFILE"
printf 'engine\tendpoint\tside\tconns\treq_s\tp50_ms\tp99_ms\trequests\tnon2xx_hook\tnon2xx_wrk\tsock_err\texhausted\tserver_cpu_us_per_req\tmachine_cpu_us_per_req\trss_mib\tdb_cpu_us_per_req\n' > "$RESULTS"

# --- one wrk run -----------------------------------------------------------------------------
warm() { # dir name conns url script
  RUN_ID="$2-c$3-warm-$(date +%s%N)" wrk -t"$WRK_THREADS" -c"$3" -d"${WARM_S}s" -s "$5" "$4" > "$1/wrk_${2}_c${3}_warmup.txt" 2>&1
}
# PostgreSQL: "pid ticks" of the backends serving application_name $1
pg_backend_ticks() {
  local p
  for p in $(psql "$PG_BASE" -Atc "SELECT pid FROM pg_stat_activity WHERE application_name = '$1'" 2>/dev/null); do
    [ -r "/proc/$p/stat" ] && echo "$p $(cpu_ticks_pid "$p" 2>/dev/null || echo 0)"
  done
  return 0
}
measure() { # engine name side pid conns url script
  local engine="$1" name="$2" side="$3" pid="$4" conns="$5" url="$6" script="$7"
  local dir="$RUN_DIR/$engine" f="$RUN_DIR/$engine/wrk_${2}_c${5}.txt"
  local c0 s0 c1 s1 app="quiz_bench_$side" d0="" d1="" dbt=0
  [ "$engine" = postgres ] && d0=$(pg_backend_ticks "$app")
  c0=$(cpu_ticks_pid "$pid"); s0=$(sys_busy_ticks)
  RUN_ID="$name-c$conns-run-$(date +%s%N)" wrk --latency -t"$WRK_THREADS" -c"$conns" -d"${RUN_S}s" -s "$script" "$url" > "$f" 2>&1
  c1=$(cpu_ticks_pid "$pid"); s1=$(sys_busy_ticks)
  if [ "$engine" = postgres ]; then
    d1=$(pg_backend_ticks "$app")
    # backends that started during the run count from 0
    dbt=$(printf '%s\n---\n%s\n' "$d0" "$d1" | awk '$0=="---"{after=1; next} NF==2 && !after {b[$1]=$2} NF==2 && after {t += $2 - ($1 in b ? b[$1] : 0)} END{print t+0}')
  fi
  local rss rps p50 p99 reqs hook wrkx sock gone
  rss=$(rss_peak_kb "$pid")
  rps=$(awk '/^Requests\/sec/{print $2}' "$f")
  p50=$(awk '$1=="50%"{print $2}' "$f" | to_ms)
  p99=$(awk '$1=="99%"{print $2}' "$f" | to_ms)
  reqs=$(awk '/requests in/{print $1}' "$f")
  hook=$(awk '/^non2xx_hook:/{print $2}' "$f"); hook=${hook:-NA}
  wrkx=$(awk -F': ' '/Non-2xx/{print $2}' "$f"); wrkx=${wrkx:-0}
  sock=$(awk '/Socket errors/{gsub(/^ +/,""); gsub(/ /,""); print}' "$f"); sock=${sock:-0}
  gone=$(awk '/^answers_exhausted:/{print $2}' "$f"); gone=${gone:-0}
  if [ -z "$rps" ] || [ -z "$reqs" ]; then log "wrk failed: $f"; cat "$f" >&2; exit 1; fi
  awk -v e="$engine" -v n="$name" -v sd="$side" -v cn="$conns" -v rps="$rps" -v p50="$p50" -v p99="$p99" \
      -v r="$reqs" -v h="$hook" -v w="$wrkx" -v so="$sock" -v g="$gone" -v rss="$rss" \
      -v c="$((c1 - c0))" -v s="$((s1 - s0))" -v hz="$CLK_TCK" -v en="$engine" -v d="$dbt" \
      'BEGIN{db = (en == "postgres") ? sprintf("%.1f", d/hz*1e6/r) : "NA"; printf "%s\t%s\t%s\t%s\t%.0f\t%.3f\t%.3f\t%s\t%s\t%s\t%s\t%s\t%.1f\t%.1f\t%.1f\t%s\n", e, n, sd, cn, rps, p50, p99, r, h, w, so, g, c/hz*1e6/r, s/hz*1e6/r, rss/1024, db}' \
    | tee -a "$RESULTS" >&2
  grep -h '^first_non2xx' "$f" >&2 || true
}
reset_hwm() { echo 5 > "/proc/$1/clear_refs" 2>/dev/null || true; }

# One endpoint at every connection count: warm-up, then the measured run.
# Inputs of the lua script (TOKENS, WRK_MODE, WRK_PATH, BASE_LUA) come from the environment.
wanted() { case " $ENDPOINTS " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }
bench_endpoint() { # engine name side pid url script
  local c
  wanted "$2" || return 0
  reset_hwm "$4"
  for c in $CONNS; do
    log "$1: $2 ($3) at $c connections"
    warm "$RUN_DIR/$1" "$2" "$c" "$5" "$6"
    measure "$1" "$2" "$3" "$4" "$c" "$5" "$6"
  done
}

analyze() { # engine: what autovacuum would do (it is off in the local cluster, see above)
  [ "$1" = postgres ] && psql "$SVC_PG_URL" -qAt >/dev/null <<'SQL'
SELECT format('VACUUM (ANALYZE) %I.%I', schemaname, tablename) FROM pg_tables
 WHERE schemaname = 'quiz_bench' \gexec
SQL
  return 0
}
seed_answers() { # engine n file
  BENCH_PREFIX="ans-$(date +%s%N)" "$SEED_BIN" answers "$2" "$3" 2>> "$RUN_DIR/$1/seed.log"
  analyze "$1"
}

# The service's count of answers judged from memory and on a read ("memory read"), from
# its metrics: the report shows the share judged from memory in each measured run.
answers_judged() {
  curl -s "http://$SERVICE_METRICS_ADDR/metrics" | awk '
    /^answers_judged_total\{on="memory"\}/ {m = $2} /^answers_judged_total\{on="read"\}/ {r = $2}
    END {printf "%d %d\n", m, r}'
}

# The answer endpoint: every request answers a new (challenge, question) pair once, so
# the lines are seeded for each wrk run, sized from the rate seen just before.
bench_answers() { # engine pid url script first_estimate [name]
  local engine="$1" pid="$2" url="$3" script="$4" est="$5" name="${6:-answer}" c r n j0
  wanted "$name" || return 0
  reset_hwm "$pid"
  for c in $CONNS; do
    log "$engine: $name at $c connections (estimate $est req/s)"
    n=$(( est * WARM_S * 3 / 2 + 500 ))
    seed_answers "$engine" "$n" "$RUN_DIR/$engine/${name}_lines_c${c}_warmup.tsv"
    ANSWERS="$RUN_DIR/$engine/${name}_lines_c${c}_warmup.tsv" warm "$RUN_DIR/$engine" "$name" "$c" "$url" "$script"
    r=$(rate_of "$RUN_DIR/$engine/wrk_${name}_c${c}_warmup.txt"); est=${r:-$est}
    n=$(( est * RUN_S * 3 + 1000 ))  # a warm-up slower than the run (a WAL restart) must not leave it short
    seed_answers "$engine" "$n" "$RUN_DIR/$engine/${name}_lines_c${c}.tsv"
    j0=$(answers_judged)
    ANSWERS="$RUN_DIR/$engine/${name}_lines_c${c}.tsv" measure "$engine" "$name" service "$pid" "$c" "$url" "$script"
    echo "$j0 $(answers_judged)" | awk -v k="judged_${engine}_${name}_c${c}" '{printf "%s: %d %d\n", k, $3 - $1, $4 - $2}' >> "$ENVFILE"
    r=$(rate_of "$RUN_DIR/$engine/wrk_${name}_c${c}.txt"); est=${r:-$est}
  done
}

# Starts player-api on $SERVICE_ADDR with database $2 (extra VAR=value words after it);
# sets SVC_PID.
start_service() { # engine url [VAR=value...]
  local engine="$1" url="$2" dir="$RUN_DIR/$1"; shift 2
  log "$engine: starting player-api on $SERVICE_ADDR $*"
  # Limits made non-binding for the benchmark (see BENCHMARKS.md): the per-address
  # sign-in rate limit (every wrk connection comes from 127.0.0.1), hearts and attempts,
  # and fair play's timing signals: seeding and wrk answer within milliseconds of
  # each question, claiming 4.2 s, so every answer would be flagged and every player held
  # as a bot, where a person's answers, seconds apart, raise none.
  # The allocator as the README's deployment section runs it (freed memory returned at
  # once, arenas committed as used). The JWT secrets stay the same across restarts.
  env -u REDIS_URL -u RUST_LOG ${BENCH_RUST_LOG:+RUST_LOG="$BENCH_RUST_LOG"} \
    MIMALLOC_PURGE_DELAY=0 MIMALLOC_ARENA_EAGER_COMMIT=0 \
    APP_ENV=development LOG_FORMAT=json DEMO_CONTENT=true \
    PLAYER_API_ADDR="$SERVICE_ADDR" METRICS_ADDR="$SERVICE_METRICS_ADDR" DATABASE_URL="$url" \
    JWT_SECRET="bench-player-secret-$BENCH_STAMP-0123456789abcdef" \
    ADMIN_JWT_SECRET="bench-admin-secret-$BENCH_STAMP-0123456789abcdef" \
    RATE_LIMIT_AUTH_PER_MINUTE=1000000000 RATE_LIMIT_PLAYER_WRITES_PER_MINUTE=1000000000 RATE_LIMIT_SEND_CODE_PER_MINUTE=1000000000 \
    RULE_MAX_HEARTS=1000000 RULE_DAILY_ATTEMPTS=1000000 FAIRPLAY_MIN_MS=0 FAIRPLAY_MEDIAN_PERCENT=0 FAIRPLAY_CLAIM_TOLERANCE_MS=600000 "$@" \
    "$SVC_BIN" >> "$dir/player-api.log" 2>&1 &
  SVC_PID=$!; PIDS+=("$SVC_PID")
  wait_port "$SERVICE_ADDR" 120 || { log "player-api did not start"; tail -20 "$dir/player-api.log" >&2; exit 1; }
}
BENCH_STAMP=$(date +%s)

run_engine() { # sqlite|postgres
  local engine="$1" dir="$RUN_DIR/$1" svc_url ax_url pool
  SVC_PG_URL=""
  mkdir -p "$dir"
  echo "load_start_$engine: $(uptime | sed 's/.*load average: //')" >> "$ENVFILE"
  if [ "$engine" = sqlite ]; then
    svc_url="sqlite:$dir/quiz.db"
    ax_url="sqlite://$dir/axbench.db"
    pool=4
  else
    pg_isready -d "$PG_BASE" -q || { log "PostgreSQL is not reachable at $PG_BASE (set BENCH_PG_URL)"; exit 1; }
    PG_SCHEMAS=1
    psql "$PG_BASE" -q -c "DROP SCHEMA IF EXISTS quiz_bench CASCADE" -c "DROP SCHEMA IF EXISTS quiz_bench_axbench CASCADE" \
      -c "CREATE SCHEMA quiz_bench" -c "CREATE SCHEMA quiz_bench_axbench" >/dev/null
    # axbench's sqlx has no TLS, so it talks to PostgreSQL in plain text; the service
    # would negotiate TLS with a server that offers it (sslmode=prefer), paying for
    # encryption on both ends of the loopback: both sides go in plain text.
    svc_url="$(with_schema "$PG_BASE" quiz_bench)&application_name=quiz_bench_service&sslmode=disable"
    ax_url="$(with_schema "$PG_BASE" quiz_bench_axbench)&application_name=quiz_bench_axbench"
    SVC_PG_URL="$(with_schema "$PG_BASE" quiz_bench)"
    pool=16
  fi

  start_service "$engine" "$svc_url"
  local svc=$SVC_PID

  log "$engine: starting axbench on $AX_ADDR (seeds its 100,000 players on first start)"
  env DATABASE_URL="$ax_url" THREADS=2 POOL="$pool" ADDR="$AX_ADDR" SQLITE_SYNC=NORMAL "$AX_BIN" > "$dir/axbench.log" 2>&1 &
  local ax=$!; PIDS+=("$ax")
  wait_port "$AX_ADDR" 120 || { log "axbench did not start"; cat "$dir/axbench.log" >&2; exit 1; }

  log "$engine: seeding $READERS players (guest, region, one challenge each)"
  BENCH_BASE_URL="http://$SERVICE_ADDR" DATABASE_URL="$svc_url" BENCH_PREFIX="readers-$(date +%s%N)" \
    "$SEED_BIN" readers "$READERS" "$dir/tokens.txt" 2>> "$dir/seed.log"
  tail -1 "$dir/seed.log" >&2
  analyze "$engine"
  echo "rss_after_seed_mib_$engine: $(( $(rss_peak_kb "$svc") / 1024 ))" >> "$ENVFILE"
  export BENCH_BASE_URL="http://$SERVICE_ADDR" DATABASE_URL="$svc_url"

  local S="http://$SERVICE_ADDR" A="http://$AX_ADDR" Q="$BENCH_WRK_DIR/quiz.lua" B="$BENCH_WRK_DIR/baseline.lua"
  local T="$dir/tokens.txt" BW="$BASELINE_DIR/wrk"
  BASE_LUA= bench_endpoint "$engine" json axbench "$ax" "$A/json" "$B"
  WRK_MODE=get WRK_PATH=/health bench_endpoint "$engine" health service "$svc" "$S/health" "$Q"
  BASE_LUA="$BW/read.lua" TOKENS="$AX_TOKENS" bench_endpoint "$engine" read axbench "$ax" "$A/read" "$B"
  WRK_MODE=get WRK_PATH=/v1/progress/summary TOKENS="$T" bench_endpoint "$engine" summary service "$svc" "$S/v1/progress/summary" "$Q"
  WRK_MODE=get WRK_PATH=/v1/leaderboards TOKENS="$T" bench_endpoint "$engine" leaderboards service "$svc" "$S/v1/leaderboards" "$Q"
  WRK_MODE=get WRK_PATH=/v1/leaderboards/me TOKENS="$T" bench_endpoint "$engine" me service "$svc" "$S/v1/leaderboards/me" "$Q"
  BASE_LUA="$BW/write.lua" WRK_PATH=/write TOKENS="$AX_TOKENS" bench_endpoint "$engine" write axbench "$ax" "$A/write" "$B"
  local est; est=$(awk -F'\t' -v e="$engine" '$1==e && $2=="write" && $4==64 {print $5}' "$RESULTS"); est=${est:-2000}
  WRK_MODE=answer bench_answers "$engine" "$svc" "$S/v1/challenges/answer" "$Q" "$est"
  if wanted answer_nomem; then
    # as behind a round-robin balancer: no answer judged from memory, each read first
    stop_pid "$svc"; forget_pid "$svc"
    start_service "$engine" "$svc_url" ANSWER_MEMORY=false; svc=$SVC_PID
    WRK_MODE=answer bench_answers "$engine" "$svc" "$S/v1/challenges/answer" "$Q" "$est" answer_nomem
    stop_pid "$svc"; forget_pid "$svc"
    start_service "$engine" "$svc_url"; svc=$SVC_PID
  fi
  WRK_MODE=guest bench_endpoint "$engine" guest service "$svc" "$S/v1/auth/guest" "$Q"
  unset BENCH_BASE_URL DATABASE_URL
  if [ "$engine" = postgres ]; then # how each table was read during the run (diagnostics)
    psql "$SVC_PG_URL" -c "SELECT relname, seq_scan, seq_tup_read, idx_scan, n_live_tup FROM pg_stat_user_tables ORDER BY seq_tup_read DESC" \
      > "$dir/pg_table_stats.txt" 2>&1 || true
  fi

  stop_pid "$ax"; forget_pid "$ax"
  stop_pid "$svc"; forget_pid "$svc"
  gzip -f "$dir/player-api.log" || true
  echo "load_end_$engine: $(uptime | sed 's/.*load average: //')" >> "$ENVFILE"
}

for e in $ENGINES; do run_engine "$e"; done

steal1=$(awk '/^cpu /{print $9, $2+$3+$4+$5+$6+$7+$8+$9}' /proc/stat)
echo "$steal0 $steal1" | awk '{printf "cpu_steal_pct: %.1f\n", ($3-$1)/($4-$2)*100}' >> "$ENVFILE"
echo "load_end: $(uptime | sed 's/.*load average: //')" >> "$ENVFILE"
echo "finished: $(date -u +%FT%TZ)" >> "$ENVFILE"

if [ "${NO_REPORT:-0}" = 1 ]; then
  python3 "$ROOT/bench/report.py" "$RUN_DIR"
else
  python3 "$ROOT/bench/report.py" "$RUN_DIR" --write "$ROOT/BENCHMARKS.md"
fi
log "raw results in $RUN_DIR"
