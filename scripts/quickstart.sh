#!/usr/bin/env bash
# Quick start: install, build, and run Junction as a service on embedded defaults:
# `junction serve` — REST + /health + /metrics on 127.0.0.1:8585, MCP on :8586/mcp,
# webhooks on :8587, workers — in the foreground until Ctrl-C.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh
ensure_pnpm
install_and_build
link_cli
echo "==> junction init" >&2
node apps/cli/bin/run.js init
echo "==> junction serve (Ctrl-C stops it)" >&2
exec node apps/cli/bin/run.js serve "$@"
