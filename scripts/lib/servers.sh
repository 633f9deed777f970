# Start-up helpers of the scripts that drive both binaries over HTTP (api-fuzz.sh,
# api-contract.sh). Source it from the repository root, in a script with
# `set -euo pipefail`, after `cargo build --bins`. It sets an EXIT trap that stops what
# it started, drops the PostgreSQL schema it made and removes $work.

target_dir="${CARGO_TARGET_DIR:-target}"
work=$(mktemp -d)
pids=()
schema=""
# The super_admin both binaries' database starts with.
ADMIN_USERNAME=admin
ADMIN_PASSWORD=Fuzz-pass-1

drop_schema() {
  if [ -n "$schema" ]; then
    PGOPTIONS=--client-min-messages=warning \
      psql -q -h 127.0.0.1 -U postgres -d test -c "DROP SCHEMA IF EXISTS $schema CASCADE" >/dev/null
    schema=""
  fi
}

stop_servers() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  pids=()
  drop_schema
}

servers_cleanup() {
  stop_servers
  rm -rf "$work"
}
trap servers_cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

wait_healthy() {
  for _ in $(seq 1 150); do curl -fs "$1/health" >/dev/null && return 0; sleep 0.2; done
  echo "$1 did not start" >&2; return 1
}

json_field() { python3 -c "import json,sys; d=json.load(sys.stdin); print($1)"; }

# new_database ENGINE (sqlite or postgres): a fresh database (a file, or a schema of the
# `test` database) and the settings both binaries share: the demo content, console SMS,
# sign-in limits out of the way. Exports DATABASE_URL and the rest.
new_database() {
  local engine=$1 db_url
  if [ "$engine" = postgres ]; then
    schema="st_$(date +%s)_$$"
    psql -q -h 127.0.0.1 -U postgres -d test -c "CREATE SCHEMA $schema" >/dev/null
    db_url="postgres://postgres@127.0.0.1:5432/test?options=-c%20search_path%3D$schema"
  else
    rm -f "$work/$engine.db"*
    db_url="sqlite:$work/$engine.db"
  fi
  export DATABASE_URL="$db_url" DEMO_CONTENT=true SMS_PROVIDER=console RUST_LOG=off \
    ADMIN_BOOTSTRAP_USERNAME="$ADMIN_USERNAME" ADMIN_BOOTSTRAP_PASSWORD="$ADMIN_PASSWORD" \
    METRICS_ADDR=127.0.0.1:0 MEDIA_FS_DIR="$work/media" \
    RATE_LIMIT_AUTH_PER_MINUTE=1000000 RATE_LIMIT_SEND_CODE_PER_MINUTE=1000000 \
    RATE_LIMIT_PLAYER_WRITES_PER_MINUTE=1000000
}

# start_binary EXE LOG: EXE (admin-console or player-api, of any build) on a free port
# with the settings of new_database, once healthy. Sets STARTED_URL.
start_binary() {
  local exe=$1 log=$2 port
  port=$(free_port)
  case "$(basename "$exe")" in
    admin-console) ADMIN_CONSOLE_ADDR=127.0.0.1:$port "$exe" >"$log" 2>&1 & pids+=($!) ;;
    player-api) PLAYER_API_ADDR=127.0.0.1:$port "$exe" >"$log" 2>&1 & pids+=($!) ;;
    *) echo "start_binary: unknown binary $exe" >&2; return 1 ;;
  esac
  STARTED_URL="http://127.0.0.1:$port"
  wait_healthy "$STARTED_URL"
}

# start_servers ENGINE: a new database, then admin-console (which migrates it and
# creates the super_admin) and player-api of this build. Sets PLAYER_URL and ADMIN_URL;
# logs go to $work/{admin,player}-ENGINE.log.
start_servers() {
  local engine=$1
  new_database "$engine"
  start_binary "$target_dir/debug/admin-console" "$work/admin-$engine.log"
  ADMIN_URL=$STARTED_URL
  start_binary "$target_dir/debug/player-api" "$work/player-$engine.log"
  PLAYER_URL=$STARTED_URL
}
