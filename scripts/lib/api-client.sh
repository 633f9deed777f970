# The Python client generator of the scripts that play the API through generated
# clients (api-contract.sh, upgrade-check.sh). Source it from the repository root, in a
# script with `set -euo pipefail`; `generate` writes into the $work of
# scripts/lib/servers.sh.

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
    echo "openapi-python-client refused the $name document" >&2
    return 1
  }
  # The generator (0.29.1) types a body of several content types (the media upload: a
  # form or the raw file) as `A | B | Unset` without importing `Unset`; import it.
  { grep -rl --include='*.py' '| Unset = UNSET' "$work/clients/$name/api" || true; } | while read -r file; do
    grep -q 'import.*\bUnset\b' "$file" || sed -i 's/^from \.\.\.types import UNSET, /from ...types import UNSET, Unset, /' "$file"
  done
}

