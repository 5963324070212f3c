// The workspace's packages that have tests, as pnpm-workspace.yaml lists their folders
// (packages/*, apps/*, tooling, bench): read by the test runner and the summary of its reports.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** @returns {{ name: string, folder: string, test: string }[]} in folder order */
export function testedPackages() {
  const folders = [
    ...['packages', 'apps'].flatMap((group) =>
      existsSync(path.join(root, group))
        ? readdirSync(path.join(root, group))
            .sort()
            .map((name) => path.join(root, group, name))
        : [],
    ),
    path.join(root, 'tooling'),
    path.join(root, 'bench'),
  ];
  return folders.flatMap((folder) => {
    const pkgFile = path.join(folder, 'package.json');
    if (!existsSync(pkgFile)) return [];
    const pkg = JSON.parse(readFileSync(pkgFile, 'utf8'));
    return pkg.scripts?.test ? [{ name: pkg.name, folder, test: pkg.scripts.test }] : [];
  });
}
