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
# The layer rule and the other lint rules run beside the tests (the tests leave a core partly
# idle while they wait on the processes they start); a lint failure fails the run, and its
# output is printed after the tests so the summary line stays last.
lint_log=$(mktemp "${TMPDIR:-/tmp}/junction-lint.XXXXXX")
echo "==> linting beside the tests (its output follows them)" >&2
"${PNPM[@]}" run lint >"$lint_log" 2>&1 &
lint_pid=$!
rm -rf packages/*/reports apps/*/reports tooling/reports
echo "==> testing" >&2
"${PNPM[@]}" run test >&2
status=$?
wait "$lint_pid"
lint=$?
echo "==> linting" >&2
cat "$lint_log" >&2
rm -f "$lint_log"
[ $lint -eq 0 ] || echo "==> lint failed (see above)" >&2
node tooling/scripts/jest-summary.mjs
summary=$?
[ $lint -eq 0 ] && [ $status -eq 0 ] && [ $summary -eq 0 ]
