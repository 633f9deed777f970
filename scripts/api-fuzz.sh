#!/usr/bin/env bash
# Hostile input against both OpenAPI documents with schemathesis (from PyPI), fixed
# generation: no 5xx, and every response inside the documented schema.
# Usage: bash scripts/api-fuzz.sh [sqlite|postgres]   (default: both)
set -euo pipefail
cd "$(dirname "$0")/.."

ST_VERSION=4.32.5
if ! st --version 2>/dev/null | grep -q "$ST_VERSION"; then
  python3 -m pip install -q --disable-pip-version-check "schemathesis==$ST_VERSION"
fi
cargo build -q --bins
source scripts/lib/servers.sh

# A pass whose token must stay valid throughout: schemathesis only warns when every
# answer of an operation was 401/403, which means the pass tested nothing behind sign-in.
# The sign-in routes themselves need no token: their 401 answers wrong credentials (the
# documents' examples are well-formed ones), and they are not counted; nor are the MFA
# routes that ask for the admin's current password, whose 401 answers a wrong one.
st_signed_in() {
  local out="$work/st-pass.log" lost
  st run "$@" | tee "$out"
  lost=$(python3 - "$out" <<'PY'
import re, sys
sign_in = re.compile(r"^/v1/(auth/(phone|refresh)|admin/(login|refresh|auth|mfa/(setup|disable)))$")
listed = False
for line in open(sys.argv[1], encoding="utf-8", errors="replace"):
    if line.startswith("Authentication failed"):
        listed = True
    elif listed and not line.startswith((" ", "\n")) and not line[:1].isdigit():
        listed = False
    match = re.match(r"^\s+- [A-Z]+ (\S+)$", line) if listed else None
    if match and not sign_in.match(match.group(1)):
        print(match.group(0).strip())
PY
)
  if [ -n "$lost" ]; then
    echo "api-fuzz: the token stopped working during the pass; untested: $lost" >&2
    return 1
  fi
}

run_engine() {
  local engine=$1
  start_servers "$engine"
  local player=$PLAYER_URL admin=$ADMIN_URL

  local token atoken
  token=$(curl -fs -X POST "$player/v1/auth/guest" -H 'content-type: application/json' \
    -d '{"deviceId":"schemathesis"}' | json_field 'd["data"]["tokens"]["accessToken"]')
  atoken=$(curl -fs -X POST "$admin/v1/admin/login" -H 'content-type: application/json' \
    -d "{\"username\":\"$ADMIN_USERNAME\",\"password\":\"$ADMIN_PASSWORD\"}" | json_field 'd["data"]["accessToken"]')
  local common=(--generation-deterministic -n "${FUZZ_EXAMPLES:-25}" --request-timeout 10)
  # Routes that end the caller's session run last, so the others keep a valid token;
  # so does minor mode, which (once an example turns it on) refuses ads and, at night,
  # play with 403.
  local session_enders='^/v1/(auth/logout|users/me|users/me/minor-mode)$'
  # HUAWEI ID, Apple and the NPPA real-name interface are not configured here: their
  # documented answer is 503 (so is a link's, which checks an Apple identity token).
  local unconfigured='^/v1/(auth/(huawei|apple|android_vendor|ios_vendor|link)|users/me/real-name)$'

  echo "== $engine: player API"
  st_signed_in "$player/v1/openapi.json" --url "$player" -H "Authorization: Bearer $token" \
    -c not_a_server_error,response_schema_conformance "${common[@]}" \
    --exclude-path-regex "$session_enders|$unconfigured"
  st run "$player/v1/openapi.json" --url "$player" -H "Authorization: Bearer $token" \
    -c response_schema_conformance "${common[@]}" --include-path-regex "$unconfigured"
  st run "$player/v1/openapi.json" --url "$player" -H "Authorization: Bearer $token" \
    -c not_a_server_error,response_schema_conformance "${common[@]}" \
    --include-path-regex "$session_enders"
  echo "== $engine: admin API"
  # A change of the fuzzing admin's own account ends its tokens: a password reset, a
  # deactivation, a demotion or a deletion (its id is in the listings and in the sign-in
  # answer, and the stateful phase follows the documents' AdminId from those to
  # `/admins/{id}`), an MFA reset, a password change or turning MFA on. Those routes run
  # last too.
  local admin_session_enders='^/v1/admin/(admins/[^/]+(/reset-password|/mfa)?|change-password|mfa/enable)$'
  st_signed_in "$admin/v1/admin/openapi.json" --url "$admin" -H "Authorization: Bearer $atoken" \
    -c not_a_server_error,response_schema_conformance "${common[@]}" \
    --exclude-path-regex "$admin_session_enders"
  st run "$admin/v1/admin/openapi.json" --url "$admin" -H "Authorization: Bearer $atoken" \
    -c not_a_server_error,response_schema_conformance "${common[@]}" \
    --include-path-regex "$admin_session_enders"

  stop_servers
}

engines=("${1:-sqlite}")
[ $# -eq 0 ] && engines=(sqlite postgres)
for engine in "${engines[@]}"; do run_engine "$engine"; done
echo "schemathesis: no server error and no response outside the documented schemas"
