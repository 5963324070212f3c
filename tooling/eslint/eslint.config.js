// Shared flat ESLint config for every package: typescript-eslint recommended, no `any` in code,
// and the layer rule (imports between packages only point down; see layer-rule.js).
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
);
