#!/usr/bin/env bash
# The OpenAPI documents as a contract: each served document validates with
# openapi-spec-validator, and a client generated from each by openapi-python-client
# (both from PyPI, pinned) plays against the running binaries: a guest's game and an
# admin's question workflow, every answer parsed into the generated models
# (scripts/api-client/play.py). The generated code lives in a temporary folder only.
# Usage: bash scripts/api-contract.sh [sqlite|postgres]   (default: both)
set -euo pipefail
cd "$(dirname "$0")/.."

GENERATOR_VERSION=0.29.1
VALIDATOR_VERSION=0.9.0
# A virtualenv of its own (the generator pins its own httpx, attrs and ruff), kept
# between runs on this machine and remade when a pin changes.
venv="${API_CLIENT_VENV:-/var/tmp/quiz-game-api-client-venv}"
wanted="openapi-python-client==$GENERATOR_VERSION openapi-spec-validator==$VALIDATOR_VERSION"
if [ "$(cat "$venv/pins" 2>/dev/null)" != "$wanted" ]; then
  rm -rf "$venv"
  python3 -m venv "$venv"
  # shellcheck disable=SC2086 # the pins are separate arguments
  "$venv/bin/pip" install -q --disable-pip-version-check $wanted
  echo "$wanted" >"$venv/pins"
fi
cargo build -q --bins
source scripts/lib/servers.sh

# generate NAME DOCUMENT: the client package NAME from DOCUMENT into $work/clients/NAME.
# The generator knows JSON, form and binary bodies only: the CSV import's text/csv body
# (a string of format binary) is sent as binary content, with its own Content-Type.
generate() {
  local name=$1 document=$2
  cat >"$work/$name-config.yaml" <<CONFIG
project_name_override: $name
package_name_override: $name
content_type_overrides:
  text/csv: application/octet-stream
CONFIG
  # The generator formats its output with the ruff of its virtualenv.
  (cd "$work/clients" && PATH="$venv/bin:$PATH" "$venv/bin/openapi-python-client" generate --path "$document" \
    --config "$work/$name-config.yaml" --meta none --output-path "$work/clients/$name" \
    --fail-on-warning >"$work/$name-generate.log" 2>&1) || {
    cat "$work/$name-generate.log" >&2
    echo "api-contract: openapi-python-client refused the $name document" >&2
    return 1
  }
  # The generator (0.29.1) types a body of several content types (the media upload: a
  # form or the raw file) as `A | B | Unset` without importing `Unset`; import it.
  grep -rl --include='*.py' '| Unset = UNSET' "$work/clients/$name/api" | while read -r file; do
    grep -q 'import.*\bUnset\b' "$file" || sed -i 's/^from \.\.\.types import UNSET, /from ...types import UNSET, Unset, /' "$file"
  done
}

run_engine() {
  local engine=$1
  start_servers "$engine"
  echo "== $engine: validating and generating"
  curl -fsS "$PLAYER_URL/v1/openapi.json" -o "$work/player.json"
  curl -fsS "$ADMIN_URL/v1/admin/openapi.json" -o "$work/admin.json"
  "$venv/bin/openapi-spec-validator" "$work/player.json" "$work/admin.json"
  rm -rf "$work/clients" && mkdir -p "$work/clients"
  generate player_client "$work/player.json"
  generate admin_client "$work/admin.json"
  echo "== $engine: playing through the generated clients"
  PYTHONPATH="$work/clients" "$venv/bin/python" scripts/api-client/play.py \
    --player "$PLAYER_URL" --admin "$ADMIN_URL" \
    --admin-username "$ADMIN_USERNAME" --admin-password "$ADMIN_PASSWORD"
  stop_servers
}

engines=("${1:-sqlite}")
[ $# -eq 0 ] && engines=(sqlite postgres)
for engine in "${engines[@]}"; do run_engine "$engine"; done
echo "api-contract: both documents valid; the generated clients played on ${engines[*]}"
