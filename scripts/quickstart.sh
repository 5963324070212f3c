#!/usr/bin/env bash
# Quick start: install, build, and run Junction's main job on embedded defaults.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh
ensure_pnpm
install_and_build
echo "==> junction init" >&2
node apps/cli/bin/run.js init
echo "==> junction env list" >&2
node apps/cli/bin/run.js env list
