// Lint rules, including the import rule between rooms (docs/architecture.md):
// src/ imports nothing from daemon/ or cli/; cli/ never imports daemon/; bin/ imports only cli/.
import tseslint from 'typescript-eslint';

const room = (files, forbidden, message) => ({
  files,
  rules: {
    'no-restricted-imports': [
      'error',
      { patterns: forbidden.map((dir) => ({ group: [`**/${dir}/**`, `../${dir}/*`], message })) },
    ],
  },
});

export default tseslint.config(
  { ignores: ['node_modules/**', 'dist/**', 'fixtures/generated/**', 'bench/out/**', 'completions/**'] },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-console': 'off',
    },
  },
  {
    // Tests read JSON response bodies loosely and assert on them field by field.
    files: ['test/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  room(
    ['src/**'],
    ['daemon', 'cli', 'bin'],
    'src/ is the engine and the shared contract: it imports no other room.',
  ),
  room(['daemon/**'], ['cli', 'bin'], 'daemon/ may import src/ only.'),
  room(
    ['cli/**'],
    ['daemon', 'bin'],
    'cli/ speaks the HTTP API through src/api-client, never daemon/ internals.',
  ),
);
