// ESLint for the web app: `npm run lint` (no warnings allowed), run by
// `make test` before the unit tests. typescript-eslint's recommended rules,
// the Rules of Hooks, and our own: a feature does not import another
// (eslint-rules/feature-isolation.js).
import js from '@eslint/js';
import { defineConfig, globalIgnores } from 'eslint/config';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import tseslint from 'typescript-eslint';
import wayfare from './eslint-rules/feature-isolation.js';

export default defineConfig([
  globalIgnores(['dist/', 'coverage/', 'e2e/screenshots/']),
  {
    files: ['**/*.{js,mjs,ts,tsx}'],
    extends: [js.configs.recommended, tseslint.configs.recommended],
    languageOptions: { globals: { ...globals.browser, ...globals.node } },
    rules: {
      // As TypeScript's noUnusedLocals/noUnusedParameters read it: a leading
      // underscore, or a rest sibling, says "left out on purpose".
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
    },
  },
  {
    files: ['public/sw.js'],
    languageOptions: { globals: globals.serviceworker },
  },
  {
    files: ['src/**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks },
    // Only the two classic rules: the plugin's recommended set also holds
    // the React Compiler's rules (refs and Date.now() read in render, setState
    // in an effect, …), which judge code by what the compiler can memoise;
    // the app does not use the compiler, and those patterns are sound without it.
    rules: {
      'react-hooks/rules-of-hooks': 'error',
      'react-hooks/exhaustive-deps': 'error',
    },
  },
  {
    files: ['src/features/**/*.{ts,tsx}'],
    plugins: { wayfare },
    rules: { 'wayfare/feature-isolation': 'error' },
  },
]);
