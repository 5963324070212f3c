// Shared jest preset: ESM TypeScript through @swc/jest, run with --experimental-vm-modules.
// Workspace packages resolve to their sources so tests never need a stale build.
import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

// pnpm links @swc/jest into this package only, so resolve it here, not from each package.
const swcJest = createRequire(import.meta.url).resolve('@swc/jest');

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');

/** @returns {import('jest').Config} */
export function jestPreset(overrides = {}) {
  // `--outputFile=reports/jest.json` needs the folder; jest does not create it.
  mkdirSync(path.join(process.cwd(), 'reports'), { recursive: true });
  return {
    testEnvironment: 'node',
    extensionsToTreatAsEsm: ['.ts'],
    transform: {
      '^.+\\.ts$': [
        swcJest,
        {
          jsc: {
            parser: { syntax: 'typescript', decorators: false },
            target: 'es2022',
          },
          module: { type: 'es6' },
          sourceMaps: 'inline',
        },
      ],
    },
    moduleNameMapper: {
      '^@junction/([a-z-]+)$': `${root}/packages/$1/src/index.ts`,
      // Subpath exports are folders with an index (`@junction/agent-core/runs`).
      '^@junction/([a-z-]+)/([a-z-]+)$': `${root}/packages/$1/src/$2/index.ts`,
      '^(\\.{1,2}/.*)\\.js$': '$1',
    },
    testMatch: ['<rootDir>/test/**/*.test.ts', '<rootDir>/src/**/*.test.ts'],
    // A hang guard, not a speed check: a test waits for the events it needs, and a loaded machine
    // only makes it slower.
    testTimeout: 180_000,
    maxWorkers: 2,
    globalSetup: path.join(here, 'temp-root-setup.js'),
    globalTeardown: path.join(here, 'temp-root-teardown.js'),
    ...overrides,
  };
}
