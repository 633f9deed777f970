#!/usr/bin/env bash
# Memory of player-api serving media: 64 clients download one 20 MB video at once, each
# at a phone's pace (curl --limit-rate), from the folder store, and the process's peak
# resident memory (VmHWM) is read before and after. Issue 32 sets the bar: under 64 MiB.
#
#   bash bench/media.sh
#
# Builds the release binaries (shared target dir), starts admin-console and player-api
# on a fresh SQLite database and media folder in $RUN_DIR, uploads the video through the
# admin API, then runs the downloads and checks every one received the whole file.
# Knobs: CLIENTS (64), VIDEO_MB (20), RATE (per client, curl's --limit-rate: 4M), RUN_DIR,
# NO_BUILD=1 (use the release binaries as they are).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
TARGET="${CARGO_TARGET_DIR:-/var/tmp/quiz-game-target}"
CLIENTS="${CLIENTS:-64}"
VIDEO_MB="${VIDEO_MB:-20}"
RATE="${RATE:-4M}"
RUN_DIR="${RUN_DIR:-/tmp/perf/quiz-media-$(date +%Y%m%d-%H%M%S)}"
mkdir -p "$RUN_DIR"
log() { echo "[$(date +%H:%M:%S)] $*" >&2; }

if [ -z "${NO_BUILD:-}" ]; then
  log "cargo build --release -p player-api -p admin-console (CARGO_TARGET_DIR=$TARGET)"
  (cd "$ROOT" && CARGO_TARGET_DIR="$TARGET" cargo build --release -q -p player-api -p admin-console)
fi

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
pport=$(free_port)
aport=$(free_port)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; }
trap cleanup EXIT

export DATABASE_URL="sqlite:$RUN_DIR/quiz.db" MEDIA_FS_DIR="$RUN_DIR/media" RUST_LOG=warn \
  ADMIN_BOOTSTRAP_USERNAME=bench ADMIN_BOOTSTRAP_PASSWORD=Bench-media-1 \
  PLAYER_API_ADDR=127.0.0.1:$pport ADMIN_CONSOLE_ADDR=127.0.0.1:$aport METRICS_ADDR=127.0.0.1:0 \
  MEDIA_MAX_VIDEO_BYTES=$((VIDEO_MB * 1000000 + 1000000))
"$TARGET/release/admin-console" >"$RUN_DIR/admin.log" 2>&1 & pids+=($!)
wait_up() { for _ in $(seq 1 150); do curl -fs "$1/health" >/dev/null && return 0; sleep 0.2; done; echo "$1 did not start" >&2; exit 1; }
wait_up "http://127.0.0.1:$aport"
"$TARGET/release/player-api" >"$RUN_DIR/player.log" 2>&1 & pids+=($!)
player_pid=$!
wait_up "http://127.0.0.1:$pport"

token=$(curl -fsS -X POST "http://127.0.0.1:$aport/v1/admin/login" -H 'content-type: application/json' \
  -d '{"username":"bench","password":"Bench-media-1"}' | python3 -c 'import json,sys; print(json.load(sys.stdin)["data"]["accessToken"])')
python3 - "$RUN_DIR/video.mp4" "$VIDEO_MB" "$ROOT/tests/fixtures/media/clip.mp4" <<'PY'
import os, struct, sys
# a real clip (uploads are demuxed to their end), grown to the size by a `free` box
path, mb, clip = sys.argv[1], int(sys.argv[2]), open(sys.argv[3], "rb").read()
free = mb * 1000000 - len(clip)
with open(path, "wb") as f:
    f.write(clip + struct.pack(">I", free) + b"free" + os.urandom(free - 8))
PY
size=$(stat -c %s "$RUN_DIR/video.mp4")
id=$(curl -fsS -X POST "http://127.0.0.1:$aport/v1/admin/media" -H "authorization: Bearer $token" \
  -H 'content-type: application/octet-stream' --data-binary "@$RUN_DIR/video.mp4" \
  | python3 -c 'import json,sys; print(json.load(sys.stdin)["data"]["id"])')
url="http://127.0.0.1:$pport/media/$id.mp4"
log "uploaded $size bytes as $id"

kib() { awk -v k="$1" '$1 == k":" {print $2}' "/proc/$player_pid/status"; }
curl -fsS -o /dev/null "$url"   # one download first: the process as it serves
echo 5 >"/proc/$player_pid/clear_refs"  # reset VmHWM to the current resident size
before=$(kib VmRSS)
log "$CLIENTS downloads at $RATE/s each"
start=$(date +%s.%N)
dl_pids=()
for i in $(seq 1 "$CLIENTS"); do
  curl -fsS --limit-rate "$RATE" -o /dev/null -w '%{size_download}\n' "$url" >"$RUN_DIR/dl-$i.txt" & dl_pids+=($!)
done
for p in "${dl_pids[@]}"; do wait "$p"; done
secs=$(python3 -c "import time; print(f'{time.time() - $start:.1f}')")
whole=$(grep -c "^$size\$" "$RUN_DIR"/dl-*.txt | awk -F: '{s += $2} END {print s}')
hwm=$(kib VmHWM)
threads=$(kib Threads)
after=$(kib VmRSS)
mib() { python3 -c "print(f'{$1 / 1024:.1f}')"; }
cat <<TABLE
| Clients | File | Rate per client | Whole downloads | Seconds | RSS before | Peak RSS (VmHWM) | RSS after | Threads after |
|---|---|---|---|---|---|---|---|---|
| $CLIENTS | $((size / 1000000)) MB | $RATE/s | $whole / $CLIENTS | $secs | $(mib "$before") MiB | $(mib "$hwm") MiB | $(mib "$after") MiB | $threads |
TABLE
[ "$whole" -eq "$CLIENTS" ] || { echo "media bench: some downloads were cut short" >&2; exit 1; }
