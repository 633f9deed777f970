#!/usr/bin/env bash
# Supply-chain gate: cargo-deny (from crates.io, pinned) on the licenses, duplicate
# versions, sources and RustSec advisories of the dependency graph (deny.toml).
# Usage: bash scripts/deny.sh
set -euo pipefail
cd "$(dirname "$0")/.."

DENY_VERSION=0.20.2
if ! cargo deny --version 2>/dev/null | grep -qx "cargo-deny $DENY_VERSION"; then
  echo "Installing cargo-deny $DENY_VERSION"
  # A build directory of its own: not the workspace's target directory, gone afterwards.
  build=$(mktemp -d)
  trap 'rm -rf "$build"' EXIT
  cargo install --locked --quiet "cargo-deny@$DENY_VERSION" --target-dir "$build"
fi

cargo deny --locked check bans licenses sources

# The advisory database is a git repository on github.com, which some machines (this
# project's CI among them) cannot reach: then the copy a reachable run fetched, if any,
# is used as it is; without one the advisories are skipped, loudly (docs/decisions.md).
ADVISORY_DB=https://github.com/rustsec/advisory-db
db_root="${CARGO_HOME:-$HOME/.cargo}/advisory-dbs"
if timeout 20 git ls-remote --exit-code "$ADVISORY_DB" HEAD >/dev/null 2>&1; then
  cargo deny --locked check advisories
elif db=$(find "$db_root" -mindepth 1 -maxdepth 1 -type d 2>/dev/null | head -n1) && [ -n "$db" ]; then
  fetched=$(git -C "$db" log -1 --format=%cs 2>/dev/null || echo "an unknown date")
  echo "deny: $ADVISORY_DB is unreachable; advisories checked against the copy of $fetched in $db"
  cargo deny --locked --offline check advisories
else
  echo "deny: ADVISORIES NOT CHECKED: $ADVISORY_DB is unreachable from this machine and no"
  echo "deny: copy was ever fetched here. Run 'bash scripts/deny.sh' where github.com is"
  echo "deny: reachable (or 'cargo deny fetch db') to check them."
fi
