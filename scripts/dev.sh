#!/usr/bin/env bash
# Runs both services on the embedded SQLite database (data/quiz.db) with the demo content,
# and prints their URLs and the admin sign-in. Ctrl-C stops both.
set -euo pipefail
cd "$(dirname "$0")/.."

mkdir -p data
password_file=data/dev-admin-password
if [ ! -s "$password_file" ]; then
  # A random development password, kept beside the database it was created with.
  printf 'Dev-%s\n' "$(head -c 12 /dev/urandom | base64 | tr -d '/+=')" > "$password_file"
  chmod 600 "$password_file"
fi

# only the two services (the test harness's binaries are built by the tests)
cargo build -p player-api -p admin-console
target_dir="${CARGO_TARGET_DIR:-target}"

export DEMO_CONTENT=true
# 14 days of simulated players, played once per database in the background
export DEMO_HISTORY="${DEMO_HISTORY:-true}"
export SMS_PROVIDER="${SMS_PROVIDER:-console}"
export ADMIN_BOOTSTRAP_USERNAME="${ADMIN_BOOTSTRAP_USERNAME:-admin}"
export ADMIN_BOOTSTRAP_PASSWORD="${ADMIN_BOOTSTRAP_PASSWORD:-$(cat "$password_file")}"
player_addr="${PLAYER_API_ADDR:-127.0.0.1:8080}"
admin_addr="${ADMIN_CONSOLE_ADDR:-127.0.0.1:8081}"

# Each serves /metrics on a listener of its own: METRICS_ADDR, or the binary's default
# (player 127.0.0.1:9464, admin 127.0.0.1:9465); this script sets METRICS_ADDR per binary
# from its own PLAYER_METRICS_ADDR and ADMIN_METRICS_ADDR, so the two never collide.
player_metrics="${PLAYER_METRICS_ADDR:-127.0.0.1:9464}"
admin_metrics="${ADMIN_METRICS_ADDR:-127.0.0.1:9465}"
METRICS_ADDR="$player_metrics" "$target_dir/debug/player-api" &
player_pid=$!
METRICS_ADDR="$admin_metrics" "$target_dir/debug/admin-console" &
admin_pid=$!
trap 'kill $player_pid $admin_pid 2>/dev/null; wait' INT TERM EXIT

for url in "http://$player_addr/health" "http://$admin_addr/health"; do
  for _ in $(seq 1 100); do
    curl -fsS "$url" >/dev/null 2>&1 && break
    sleep 0.2
  done
done

cat <<TXT

  player-api     http://$player_addr    (OpenAPI: http://$player_addr/v1/openapi.json)
  admin-console  http://$admin_addr    (OpenAPI: http://$admin_addr/v1/admin/openapi.json)
  admin console  http://$admin_addr/console    (in a browser)
  API reference  http://$player_addr/docs   http://$admin_addr/docs    (in a browser)
  metrics        http://$player_metrics/metrics   http://$admin_metrics/metrics
  admin sign-in  username: $ADMIN_BOOTSTRAP_USERNAME   password: $ADMIN_BOOTSTRAP_PASSWORD
                 (kept in $password_file; it applies when the database has no admin yet)

  demo history: on a new database the console plays 200 simulated players through the
                last 14 days in the background (about half a minute; DEMO_HISTORY=false skips it)

  try:  curl http://$player_addr/v1/app/regions
  Ctrl-C stops both services.

TXT
wait -n
