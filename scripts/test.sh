#!/usr/bin/env bash
# Builds, lints (a lint error fails the run), then runs every test of every package; its last
# line is the plain `N passed, N failed`.
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh
ensure_pnpm
ensure_debian_packages nats-server chromium
set -e
install_and_build
set +e
# The layer rule and the other lint rules: a failure fails the run, but the tests still run
# so the summary line stays last.
echo "==> linting" >&2
"${PNPM[@]}" run lint >&2
lint=$?
[ $lint -eq 0 ] || echo "==> lint failed (see above); running the tests anyway" >&2
rm -rf packages/*/reports apps/*/reports tooling/reports
echo "==> testing" >&2
"${PNPM[@]}" run test >&2
status=$?
node tooling/scripts/jest-summary.mjs
summary=$?
[ $lint -eq 0 ] && [ $status -eq 0 ] && [ $summary -eq 0 ]
