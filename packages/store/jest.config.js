import fs from 'node:fs';
import { createRequire } from 'node:module';
import { jestPreset } from '@junction/tooling/jest-preset';

// jest resolves transform modules from this package, where @swc/jest is not installed (it is a
// dependency of @junction/tooling); hand it the path resolved from the preset's own package.
const fromTooling = createRequire(import.meta.resolve('@junction/tooling/jest-preset'));
const preset = jestPreset();
const [, swcOptions] = preset.transform['^.+\\.ts$'];

// `--outputFile=reports/jest.json` fails when the folder is missing (it is git-ignored).
fs.mkdirSync(new URL('./reports', import.meta.url), { recursive: true });

export default { ...preset, transform: { '^.+\\.ts$': [fromTooling.resolve('@swc/jest'), swcOptions] } };
