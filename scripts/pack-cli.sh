#!/usr/bin/env bash
# Packs the junction CLI into one self-contained npm tarball, junction-<version>.tgz, that
# `npm install -g ./junction-<version>.tgz` installs with Node alone: every dependency —
# the unpublished workspace packages (@junction/*) included — is bundled inside it, so the
# install needs no registry. The tarball carries the libsql native binaries of the platform it
# was made on (linux-x64 gnu and musl here) and declares that os/cpu: build it on the OS and
# architecture it is for. The packages must be built first (`pnpm build`); this script does
# not build, and changes nothing outside the output folder (default dist-pack/, or the first
# argument) and a temporary folder it removes. Its last line on stdout is the tarball's path.
set -euo pipefail
out=${1:-}
case "$out" in "" | /*) ;; *) out="$(pwd)/$out" ;; esac
cd "$(dirname "$0")/.."
repo=$(pwd)
out=${out:-"$repo/dist-pack"}
mkdir -p "$out"
out=$(cd "$out" && pwd)

# pnpm 10's deploy makes the bundle: the one on the PATH, else the repository's own (.tools/).
source scripts/lib.sh
ensure_pnpm
version=$(node -p "require('./apps/cli/package.json').version")
for d in apps/cli packages/*; do
  if [ ! -d "$d/dist" ]; then
    echo "==> $d/dist is missing: run \`pnpm build\` first" >&2
    exit 1
  fi
done
# Without its manifest the CLI imports every command module on each start.
if [ ! -f apps/cli/oclif.manifest.json ]; then
  echo "==> apps/cli/oclif.manifest.json is missing: run \`pnpm build\` first" >&2
  exit 1
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/junction-pack.XXXXXX")
store=
cleanup() {
  rm -rf "$tmp"
  # pnpm registers each project it installs in its store (store/<v>/projects/<hash>, a
  # link): take back the one the deploy added for the temp folder.
  if [ -n "$store" ] && [ -d "$store/projects" ]; then
    for link in "$store/projects"/*; do
      if [ -L "$link" ]; then
        case "$(readlink "$link")" in *"$tmp/deploy") rm -f "$link" ;; esac
      fi
    done
  fi
}
trap cleanup EXIT
stage="$tmp/package"

# pnpm 10's deploy: apps/cli with a real (hoisted, npm-style) node_modules of its production
# dependencies from the shared lockfile, workspace packages copied in as folders (injected).
echo "==> pnpm deploy @junction/cli ${version} (production dependencies, hoisted) into a temp folder" >&2
"${PNPM[@]}" --filter @junction/cli deploy --prod --prefer-offline \
  --config.inject-workspace-packages=true --config.node-linker=hoisted \
  --reporter=append-only "$tmp/deploy" >&2
# Where pnpm's store is, for the cleanup (asking `pnpm store path` would touch the repo).
store=$(node -e 'const m = /"?storeDir"?:\s*"?([^",\n]+)/.exec(require("fs").readFileSync(process.argv[1], "utf8")); if (m) console.log(m[1]);' \
  "$tmp/deploy/node_modules/.modules.yaml" 2>/dev/null || true)
# The deploy hard-links files from the workspace packages and pnpm's store: copy them to new
# files (cp -R keeps no hard links) so that nothing below can ever write through to the
# repository or the store, and the tarball holds no hard-link entries, which npm's
# extraction skips.
cp -R "$tmp/deploy" "$stage"
rm -rf "$tmp/deploy"

cd "$stage"
# The deploy copies the whole package folder: keep what runs (bin, dist), drop sources,
# tests, reports, build logs and configs, and pnpm's bookkeeping.
rm -rf src test reports coverage .turbo eslint.config.js jest.config.js tsconfig*.json \
  pnpm-lock.yaml node_modules/.pnpm node_modules/.modules.yaml \
  node_modules/.pnpm-workspace-state*.json node_modules/.bin
find node_modules -type d -name .bin -prune -exec rm -rf '{}' +
find . -name '.env' -o -name '.env.*' -o -name '*.db' -o -name '*.db-wal' -o -name '*.db-shm' |
  while read -r f; do rm -rf "$f"; done

echo "==> pruning source maps, type declarations, TypeScript sources and package test folders" >&2
find . -type f \( -name '*.map' -o -name '*.d.ts' -o -name '*.d.mts' -o -name '*.d.cts' \
  -o -name '*.ts' -o -name '*.mts' -o -name '*.cts' -o -name '*.tsbuildinfo' \) -delete
# Only test folders at a package's root (node_modules/<pkg>/test, never <pkg>/dist/test,
# which some packages export).
find node_modules -mindepth 2 -maxdepth 3 -type d \( -name test -o -name tests -o -name __tests__ \) \
  -exec test -f '{}/../package.json' ';' -prune -exec rm -rf '{}' +
find . -depth -type d -empty -delete

echo "==> writing package.json: junction ${version}, every dependency bundled" >&2
node --input-type=module - "$version" <<'EOF'
import { readFileSync, writeFileSync, existsSync, readdirSync, renameSync } from 'node:fs';
import path from 'node:path';

const read = (f) => JSON.parse(readFileSync(f, 'utf8'));
// A new file, renamed over the old: never a write into a file that may be shared.
const write = (f, v) => {
  writeFileSync(`${f}.tmp`, JSON.stringify(v, null, 2) + '\n');
  renameSync(`${f}.tmp`, f);
};

/** The version of `name` as Node would resolve it from the package folder `dir`. */
function installed(dir, name) {
  for (let d = dir; ; d = path.dirname(d)) {
    const f = path.join(d, 'node_modules', name, 'package.json');
    if (existsSync(f)) return read(f).version;
    if (d === '.' || d === path.dirname(d)) throw new Error(`${name} (needed by ${dir}) is not installed`);
  }
}

// Workspace packages keep `workspace:*` and `catalog:` specs, which npm cannot read: pin
// each to the version bundled next to it, and drop what only the monorepo uses.
const scope = 'node_modules/@junction';
for (const name of existsSync(scope) ? readdirSync(scope) : []) {
  const dir = path.join(scope, name);
  const pkg = read(path.join(dir, 'package.json'));
  for (const field of ['dependencies', 'optionalDependencies', 'peerDependencies']) {
    for (const [dep, spec] of Object.entries(pkg[field] ?? {})) {
      if (/^(workspace|catalog):/.test(spec)) pkg[field][dep] = installed(dir, dep);
    }
  }
  delete pkg.devDependencies;
  delete pkg.scripts;
  write(path.join(dir, 'package.json'), pkg);
}

const cli = read('package.json');
const dependencies = Object.fromEntries(
  Object.keys(cli.dependencies).sort().map((dep) => [dep, installed('.', dep)]),
);
write('package.json', {
  name: 'junction',
  version: process.argv[2],
  description: cli.description,
  license: cli.license,
  type: cli.type,
  engines: { node: '>=20.6' },
  // The bundled libsql native binaries are this platform's only.
  os: [process.platform],
  cpu: [process.arch],
  bin: cli.bin,
  files: ['bin', 'dist', 'oclif.manifest.json'],
  dependencies,
  bundleDependencies: Object.keys(dependencies),
  oclif: cli.oclif,
});
EOF
[ -f "$repo/LICENSE" ] && cp "$repo/LICENSE" LICENSE

# The tarball is written with tar, in npm's layout (everything under package/), so that it
# holds this folder exactly: `npm pack` re-selects the bundled files (it left @types/node out)
# and npm 11's died ("Exit handler never called!") on pnpm's hard-linked tree.
tarball="$out/junction-${version}.tgz"
echo "==> writing ${tarball}" >&2
chmod -R u+rwX,go+rX,go-w .
cd "$tmp"
rm -f "$tarball"
if tar --version 2>/dev/null | grep -q 'GNU tar'; then
  tar --owner=0 --group=0 --numeric-owner --sort=name --hard-dereference -czf "$tarball" package
else
  tar -czf "$tarball" package
fi
cd "$repo"

# Nothing of the monorepo's own leftovers may ship: sources, tests, reports, data, secrets.
if tar -tzf "$tarball" | grep -E '^package/(src|test|reports)/|(^|/)\.env(\.|$)|\.(db|db-wal|db-shm)$|\.tsbuildinfo$' >&2; then
  echo "==> the tarball holds files it must not (above)" >&2
  exit 1
fi
# npm installs regular files and folders only: a link in the tarball would be missing after.
if tar -tvzf "$tarball" | grep -E '^[hl]' >&2; then
  echo "==> the tarball holds links npm would not install (above)" >&2
  exit 1
fi
files=$(tar -tzf "$tarball" | grep -vc '/$')
echo "==> ${tarball}: $(du -h "$tarball" | cut -f1), ${files} files ($(node -p 'process.platform + "-" + process.arch') only)" >&2
echo "$tarball"
