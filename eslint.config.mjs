// Lint what we ship and what tests it; compiled output and third-party code are not ours to lint.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { layersPlugin } from './eslint-layers.mjs';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', '.demo/**', 'coverage/**', 'test/editor/screenshots/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'error',
      'no-console': 'off',
      eqeqeq: ['error', 'always', { null: 'ignore' }],
      'prefer-const': 'error',
    },
  },
  {
    // Type-aware rules, on what we ship: a promise nobody awaits or catches (an unhandled rejection ends the gateway),
    // a promise where a callback's result is ignored, `await` on what is not a promise, and an object turned into
    // "[object Object]" in a message meant for a person (the last found six when it was switched on).
    files: ['lib/**/*.ts', 'nodes/**/*.ts', 'gateway/**/*.ts', 'devhub/**/*.ts', 'devble/**/*.ts', 'demo/**/*.ts', 'cli/**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/no-base-to-string': 'error',
    },
  },
  {
    files: ['lib/**/*.ts', 'nodes/**/*.ts', 'gateway/**/*.ts', 'devhub/**/*.ts', 'devble/**/*.ts', 'demo/**/*.ts', 'cli/**/*.ts'],
    plugins: { layers: layersPlugin },
    rules: { 'layers/imports': 'error' },
  },
  {
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    languageOptions: { globals: { require: 'readonly', module: 'writable', process: 'readonly', __dirname: 'readonly', console: 'readonly', Buffer: 'readonly', RED: 'readonly', $: 'readonly', setTimeout: 'readonly' } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
