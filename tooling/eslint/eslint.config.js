// Shared flat ESLint config for every package: typescript-eslint recommended, no `any` in code,
// the layer rule (imports between packages only point down; see layer-rule.js), and the one
// door for runs (only submitRun writes a run row).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { builtinRules } from 'eslint/use-at-your-own-risk';
import { layerPlugin } from './layer-rule.js';

// ESLint gives a rule one severity; the length limit has two (a warning, then an error), so the
// core rule is registered a second time under another name.
const sizePlugin = {
  meta: { name: 'junction-size' },
  rules: { 'function-length': builtinRules.get('max-lines-per-function') },
};
const LENGTH_COUNTED = { skipBlankLines: true, skipComments: true, IIFEs: true };

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
    // Functions a person can hold in their head: a warning past 120 lines, an error past 200
    // (blank lines and comments not counted). Tests' describe blocks are lists, not logic.
    files: ['**/src/**/*.ts', '**/app/**/*.ts'],
    ignores: ['**/test/**'],
    plugins: { size: sizePlugin },
    rules: {
      'max-lines-per-function': ['warn', { max: 120, ...LENGTH_COUNTED }],
      'size/function-length': ['error', { max: 200, ...LENGTH_COUNTED }],
    },
  },
  {
    // A schema is one literal: its length is the number of settings, not of steps to follow.
    files: ['**/src/config-schema.ts'],
    rules: { 'max-lines-per-function': 'off', 'size/function-length': 'off' },
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
