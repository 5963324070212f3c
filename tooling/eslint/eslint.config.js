// Shared flat ESLint config for every package: typescript-eslint recommended, no `any` in code,
// the layer rule (imports between packages only point down; see layer-rule.js), and the one
// door for runs (only submitRun writes a run row).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { layerPlugin } from './layer-rule.js';

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', '**/drizzle/**', '**/reports/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    // Plain JavaScript (fixtures, scripts) runs on Node.
    files: ['**/*.mjs', '**/*.js'],
    languageOptions: {
      globals: Object.fromEntries(
        [
          'process',
          'console',
          'Buffer',
          'URL',
          'setTimeout',
          'clearTimeout',
          'setInterval',
          'clearInterval',
          'AbortController',
          'fetch',
          'performance',
        ].map((name) => [name, 'readonly']),
      ),
    },
  },
  {
    plugins: { junction: layerPlugin },
    rules: {
      'junction/layers': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  {
    // The one door for runs: only submitRun writes a run row (docs/architecture.md).
    files: ['**/src/**/*.ts', '**/*.mjs'],
    ignores: ['**/runs/submit-run.ts', '**/test/**'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector:
            "CallExpression[callee.property.name=/^create(Many)?$/][callee.object.property.name='runs']",
          message:
            'Only the run door writes a run row: start it with submitRun (or a RunDoor), never runs.create — see "One run, end to end" in docs/architecture.md.',
        },
      ],
    },
  },
);
