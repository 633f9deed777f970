#!/usr/bin/env bash
# Upgrades without downtime, checked (README, Upgrades without downtime): the previous
# release's binaries (the commit in deploy/previous-release) on the schema this build
# migrates to, and old and new processes side by side in one game.
#   1. This build's admin-console migrates a fresh PostgreSQL schema.
#   2. The previous release's admin-console and player-api start on it, and that
#      release's own smoke test (its scripts/api-client/play.py, through clients
#      generated from the documents its binaries serve) plays through them.
#   3. This build's player-api joins. Each API is served through a round-robin proxy
#      over a process of each release (scripts/upgrade/round_robin.py), as a load
#      balancer without sticky sessions does mid-deploy, and the smoke test plays twice,
#      the releases' turns swapped, so each of its calls reaches both. No answer may be
#      a 5xx, each process must have served some, none may stop or log an error or a
#      panic.
# On PostgreSQL: a rolling upgrade runs processes of two releases on one database; the
# SQLite set-up (one process) is stopped and started instead.
# The previous release is built once per commit, from `git archive` of it, in a target
# folder of its own: cargo knows a workspace crate by its path in the workspace and its
# files' times, so in the shared folder the two releases' builds would pass for each
# other. Its binaries are kept in $PREVIOUS_RELEASE_CACHE/COMMIT (default
# /var/tmp/quiz-game-previous), its target folder in $PREVIOUS_RELEASE_CACHE/target.
set -Eeuo pipefail
cd "$(dirname "$0")/.."

commit=$(grep -v '^#' deploy/previous-release | head -n1 | tr -d '[:space:]')
if ! git cat-file -e "$commit^{commit}" 2>/dev/null; then
  echo "upgrade-check: the previous release $commit (deploy/previous-release) is not in" \
    "this clone's history (a shallow clone? git fetch --unshallow)" >&2
  exit 1
fi
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-/var/tmp/quiz-game-target}"
previous="${PREVIOUS_RELEASE_CACHE:-/var/tmp/quiz-game-previous}/$commit"
if [ ! -x "$previous/bin/player-api" ] || [ ! -x "$previous/bin/admin-console" ]; then
  echo "== building the previous release ${commit:0:12} (once; kept in $previous)"
  rm -rf "$previous" && mkdir -p "$previous/src" "$previous/bin"
  git archive "$commit" | tar -x -C "$previous/src"
  previous_target="$(dirname "$previous")/target"
  (cd "$previous/src" && CARGO_TARGET_DIR="$previous_target" cargo build -q -p player-api -p admin-console)
  cp "$previous_target/debug/player-api" "$previous_target/debug/admin-console" "$previous/bin/"
fi
cargo build -q --bins
current="$CARGO_TARGET_DIR/debug"

source scripts/lib/servers.sh
source scripts/lib/api-client.sh

# smoke PLAYER_URL ADMIN_URL: the previous release's smoke test, through its clients.
# An answer field the previous release's document does not describe is this release's
# addition (an expand), which an older client keeps aside and ignores: the smoke test
# runs with its check for undescribed fields off (`if extra and described:`), and keeps
# every other check (an object that did not parse into its model still fails).
sed 's/if extra and described:/if False and extra and described:/' \
  "$previous/src/scripts/api-client/play.py" > "$work/play-previous.py"
smoke() {
  PYTHONPATH="$work/clients" "$venv/bin/python" "$work/play-previous.py" \
    --player "$1" --admin "$2" \
    --admin-username "$ADMIN_USERNAME" --admin-password "$ADMIN_PASSWORD"
}

# logs_on_failure: the processes' logs, when a step fails.
logs_on_failure() {
  local log
  for log in "$work"/*.log; do
    echo "--- $log" >&2
    tail -n 30 "$log" >&2
  done
}
trap 'logs_on_failure' ERR

new_database postgres
export RUST_LOG=warn LOG_FORMAT=json
start_binary "$current/admin-console" "$work/admin-current.log"
current_admin=$STARTED_URL
start_binary "$previous/bin/admin-console" "$work/admin-previous.log"
previous_admin=$STARTED_URL
start_binary "$previous/bin/player-api" "$work/player-previous.log"
previous_player=$STARTED_URL

echo "== the previous release (${commit:0:12}) on this build's schema"
curl -fsS "$previous_player/v1/openapi.json" -o "$work/player.json"
curl -fsS "$previous_admin/v1/admin/openapi.json" -o "$work/admin.json"
mkdir -p "$work/clients"
generate player_client "$work/player.json"
generate admin_client "$work/admin.json"
smoke "$previous_player" "$previous_admin"

echo "== side by side: every request alternates between a process of each release"
start_binary "$current/player-api" "$work/player-current.log"
current_player=$STARTED_URL
binaries=("${pids[@]}")

# start_proxy BACKEND...: a round-robin proxy over BACKENDs on a free port, once it
# listens (checked by a TCP connect: an HTTP request would take a turn). Sets PROXY_URL
# and PROXY_PID.
start_proxy() {
  local port
  port=$(free_port)
  python3 scripts/upgrade/round_robin.py "$port" "$work/proxied.txt" "$@" &
  PROXY_PID=$!
  pids+=("$PROXY_PID")
  PROXY_URL="http://127.0.0.1:$port"
  for _ in $(seq 1 100); do
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && return 0
    kill -0 "$PROXY_PID" 2>/dev/null || break
    sleep 0.1
  done
  echo "upgrade-check: the proxy on $port did not start" >&2
  return 1
}

# side_by_side FIRST_PLAYER SECOND_PLAYER FIRST_ADMIN SECOND_ADMIN: the smoke test
# through a proxy over each pair, its first request to the first of each.
side_by_side() {
  local player_proxy player_pid
  start_proxy "$1" "$2"
  player_proxy=$PROXY_URL player_pid=$PROXY_PID
  start_proxy "$3" "$4"
  smoke "$player_proxy" "$PROXY_URL"
  kill "$player_pid" "$PROXY_PID"
}

fail() {
  echo "upgrade-check: $*" >&2
  logs_on_failure
  exit 1
}

: >"$work/proxied.txt"
# Twice, the releases' turns swapped: each call of the smoke test reaches both.
side_by_side "$previous_player" "$current_player" "$previous_admin" "$current_admin"
side_by_side "$current_player" "$previous_player" "$current_admin" "$previous_admin"

failed=$(awk '$2 >= 500' "$work/proxied.txt")
[ -z "$failed" ] || fail "answers of 500 or more while both releases served:"$'\n'"$failed"
for backend in "$previous_player" "$current_player" "$previous_admin" "$current_admin"; do
  served=$(awk -v b="$backend" '$1 == b' "$work/proxied.txt" | wc -l)
  [ "$served" -gt 0 ] || fail "$backend served none of the game"
done
for pid in "${binaries[@]}"; do
  kill -0 "$pid" 2>/dev/null || fail "a process (pid $pid) stopped during the game"
done
if grep -l -E 'panicked|"level":"ERROR"' "$work"/*-previous.log "$work"/*-current.log >/dev/null; then
  fail "a process logged an error or a panic"
fi
echo "upgrade-check: the previous release ${commit:0:12} plays on this schema, and beside" \
  "this build ($(wc -l <"$work/proxied.txt") requests alternated, both ways)"
