#!/usr/bin/env node
// Sums jest's JSON results of every workspace package into the plain line CI reads:
// `N passed, N failed`. A package with a test script but no report counts as one failure,
// and so does each suite that failed to load, so a crash can never look green.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
let passed = 0;
let failed = 0;
const notes = [];

// The workspace's package folders (pnpm-workspace.yaml): packages/*, apps/*, tooling, bench.
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

for (const folder of folders) {
  const pkgFile = path.join(folder, 'package.json');
  if (!existsSync(pkgFile)) continue;
  const pkg = JSON.parse(readFileSync(pkgFile, 'utf8'));
  if (!pkg.scripts?.test) continue;
  const report = path.join(folder, 'reports', 'jest.json');
  if (!existsSync(report)) {
    failed += 1;
    notes.push(`${pkg.name}: no jest report (the test run crashed or did not start)`);
    continue;
  }
  const r = JSON.parse(readFileSync(report, 'utf8'));
  passed += r.numPassedTests;
  failed += r.numFailedTests;
  const broken = r.testResults.filter(
    (t) => t.status === 'failed' && t.assertionResults.length === 0,
  );
  failed += broken.length;
  for (const t of broken)
    notes.push(`${pkg.name}: suite failed to run: ${path.relative(root, t.name)}`);
  notes.push(`${pkg.name}: ${r.numPassedTests} passed, ${r.numFailedTests} failed`);
}
for (const n of notes) console.log(n);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 && passed > 0 ? 0 : 1);
