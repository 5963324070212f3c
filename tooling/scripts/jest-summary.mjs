#!/usr/bin/env node
// Sums jest's JSON results of every workspace package into the plain line CI reads:
// `N passed, N failed`. A package with a test script but no report counts as one failure,
// and so does each suite that failed to load, so a crash can never look green.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { root, testedPackages } from './workspace-packages.mjs';

let passed = 0;
let failed = 0;
const notes = [];

for (const { name, folder } of testedPackages()) {
  const report = path.join(folder, 'reports', 'jest.json');
  if (!existsSync(report)) {
    failed += 1;
    notes.push(`${name}: no jest report (the test run crashed or did not start)`);
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
    notes.push(`${name}: suite failed to run: ${path.relative(root, t.name)}`);
  notes.push(`${name}: ${r.numPassedTests} passed, ${r.numFailedTests} failed`);
}
for (const n of notes) console.log(n);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 && passed > 0 ? 0 : 1);
