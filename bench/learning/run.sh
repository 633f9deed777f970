#!/usr/bin/env bash
# The learning simulator: seeded players and questions with known parameters answer
# through the service's domain code (Elo, the IRT fit, the pick); the report replaces the
# "Learning" section of BENCHMARKS.md (between its markers).
#
#   bash bench/learning/run.sh        (every experiment on the seeds 2026, 7, 1, 2, 3;
#                                      about 25 minutes on two cores)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-/var/tmp/quiz-game-target}"
cd "$ROOT"
cargo build --release -q -p tests --bin quiz_learning_sim
REPORT="$("$CARGO_TARGET_DIR/release/quiz_learning_sim")"
printf '%s\n' "$REPORT"
python3 - "$ROOT/BENCHMARKS.md" "$REPORT" <<'PY'
import sys
path, report = sys.argv[1], sys.argv[2]
start, end = "<!-- learning:start -->", "<!-- learning:end -->"
text = open(path).read()
block = f"{start}\n{report.strip()}\n{end}"
if start in text and end in text:
    text = text[: text.index(start)] + block + text[text.index(end) + len(end):]
else:
    text = text.rstrip("\n") + "\n\n## Learning\n\nMade by `bash bench/learning/run.sh`.\n\n" + block + "\n"
open(path, "w").write(text)
PY
