import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { jestPreset } from '@junction/tooling/jest-preset';

const preset = jestPreset();

// The preset names its transformer as a bare '@swc/jest', which jest resolves from this package,
// where pnpm does not link it (it is a dependency of @junction/tooling). Resolve it from the
// preset's own location instead; a no-op once the preset passes a resolved path itself.
const requireFromTooling = createRequire(import.meta.resolve('@junction/tooling/jest-preset'));
for (const entry of Object.values(preset.transform ?? {})) {
  if (Array.isArray(entry) && entry[0] === '@swc/jest') entry[0] = requireFromTooling.resolve('@swc/jest');
}

// `pnpm test` writes reports/jest.json, and jest does not create the folder (reports/ is gitignored).
mkdirSync(new URL('./reports/', import.meta.url), { recursive: true });

export default preset;
