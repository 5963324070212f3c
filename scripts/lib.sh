# Shared by the quick-start and test scripts: find or fetch pnpm 10, then install and build.
# Nothing outside the repository changes: a pnpm 10 already on the PATH is used as it is (any
# 10.x: the repository's .npmrc keeps pnpm from switching itself to the pinned version), and
# without one, pnpm is installed into the repository's .tools/ folder (not globally).
PNPM_VERSION=10.34.8

ensure_pnpm() {
  if command -v pnpm >/dev/null 2>&1 && [ "$(pnpm --version 2>/dev/null | cut -d. -f1)" = "10" ]; then
    echo "==> using pnpm $(pnpm --version) from $(command -v pnpm)" >&2
    PNPM=(pnpm)
    return
  fi
  local local_pnpm=".tools/node_modules/.bin/pnpm"
  if [ ! -x "$local_pnpm" ]; then
    echo "==> installing pnpm@${PNPM_VERSION} into ./.tools (this repository only; remove with rm -rf .tools)" >&2
    npm install --prefix .tools --no-audit --no-fund --loglevel=error "pnpm@${PNPM_VERSION}" >&2
  fi
  echo "==> using pnpm $("$local_pnpm" --version) from ./.tools" >&2
  PNPM=("$PWD/$local_pnpm")
  # turbo looks the package manager up on the PATH; this shell's PATH only, nothing global.
  export PATH="$PWD/.tools/node_modules/.bin:$PATH"
}

install_and_build() {
  echo "==> installing dependencies" >&2
  if [ -n "${CI:-}" ]; then
    "${PNPM[@]}" install --frozen-lockfile --reporter=append-only >&2
  else
    "${PNPM[@]}" install --reporter=append-only >&2
  fi
  # Before turbo's first build: its anonymous telemetry off, its settings kept in this
  # repository (.turbo/config), not in the user's ~/.config.
  echo "==> turning turbo's anonymous telemetry off (settings in ./.turbo/config)" >&2
  TURBO_CONFIG_DIR_PATH="$PWD/.turbo/config" "${PNPM[@]}" exec turbo telemetry disable >/dev/null 2>&1 || echo "==> (could not turn turbo telemetry off; TURBO_TELEMETRY_DISABLED=1 still keeps it off)" >&2
  echo "==> building" >&2
  "${PNPM[@]}" run build >&2
}

# Puts `junction` on the PATH: a two-line shim in ~/.local/bin (the XDG place for a user's
# commands) that runs this checkout's CLI. Says what it does; never replaces a `junction` it
# did not write; JUNCTION_NO_LINK=1 skips it.
link_cli() {
  if [ -n "${JUNCTION_NO_LINK:-}" ]; then
    echo "==> not linking junction (JUNCTION_NO_LINK is set); run it as node $PWD/apps/cli/bin/run.js" >&2
    return
  fi
  local dir="${HOME}/.local/bin" shim="${HOME}/.local/bin/junction"
  local marker="# junction shim: runs the CLI of a Junction checkout"
  if [ -e "$shim" ] && ! grep -qF "$marker" "$shim" 2>/dev/null; then
    echo "==> $shim exists and is not ours: left as it is (run node $PWD/apps/cli/bin/run.js)" >&2
    return
  fi
  mkdir -p "$dir"
  printf '#!/bin/sh\n%s\nexec node "%s/apps/cli/bin/run.js" "$@"\n' "$marker" "$PWD" >"$shim"
  chmod 755 "$shim"
  echo "==> linked $shim -> $PWD/apps/cli/bin/run.js (remove it with: rm $shim)" >&2
  case ":${PATH}:" in
    *":${dir}:"*) ;;
    *) echo "==> $dir is not on your PATH: add  export PATH=\"\$HOME/.local/bin:\$PATH\"  to your shell profile" >&2 ;;
  esac
}

# Debian packages the tests need (nats-server for the coding bus, chromium for the dashboard's
# browser tests, driven by playwright-core: never a downloaded browser). Only missing ones are
# installed, with apt-get, saying so; one already there is never replaced. Without apt-get or
# root it says what to install and goes on.
ensure_debian_packages() {
  local missing=() pkg
  for pkg in "$@"; do
    case "$pkg" in
      nats-server) command -v nats-server >/dev/null 2>&1 || [ -x /usr/sbin/nats-server ] || missing+=("$pkg") ;;
      *) command -v "$pkg" >/dev/null 2>&1 || missing+=("$pkg") ;;
    esac
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = "0" ]; then
    echo "==> installing Debian packages: ${missing[*]} (apt-get)" >&2
    apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >&2
  else
    echo "==> missing ${missing[*]}: install with apt-get install ${missing[*]} (as root); tests that need them will fail" >&2
  fi
}
