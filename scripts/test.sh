#!/usr/bin/env bash
# Runs every test of every package and ends with the plain line `N passed, N failed`.
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh
ensure_pnpm
set -e
install_and_build
set +e
rm -rf packages/*/reports apps/*/reports
echo "==> testing" >&2
"${PNPM[@]}" run test >&2
status=$?
node tooling/scripts/jest-summary.mjs
summary=$?
[ $status -eq 0 ] && [ $summary -eq 0 ]
