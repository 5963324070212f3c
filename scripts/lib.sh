# Shared by the quick-start and test scripts: make sure pnpm 10 is here, then install.
PNPM_VERSION=10.34.8

ensure_pnpm() {
  if command -v pnpm >/dev/null 2>&1 && [ "$(pnpm --version 2>/dev/null | cut -d. -f1)" = "10" ]; then
    PNPM=(pnpm)
    return
  fi
  echo "==> installing pnpm@${PNPM_VERSION} (npm install -g)" >&2
  if npm install -g "pnpm@${PNPM_VERSION}" >/dev/null 2>&1 && command -v pnpm >/dev/null 2>&1; then
    PNPM=(pnpm)
  else
    echo "==> global install not possible here; using npx pnpm@${PNPM_VERSION}" >&2
    PNPM=(npx --yes "pnpm@${PNPM_VERSION}")
  fi
}

install_and_build() {
  echo "==> installing dependencies" >&2
  if [ -n "${CI:-}" ]; then
    "${PNPM[@]}" install --frozen-lockfile --reporter=append-only >&2
  else
    "${PNPM[@]}" install --reporter=append-only >&2
  fi
  echo "==> building" >&2
  "${PNPM[@]}" run build >&2
}
