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

// The correction engine's stages (src/corrections/<stage>/, docs/engine.md "The pipeline"): each
// imports only the stages below it, so the pipeline's direction holds. The root files engine.ts
// (the pipeline), proposal.ts, tasks.ts and damage.ts are imported by no stage; correction.ts (the
// shapes passed between stages) and refusals.ts are shared by all.
const STAGES = ['locate', 'rewrite', 'tiers', 'fit', 'edit', 'proof', 'save', 'scan'];
const MAY_IMPORT = {
  locate: [],
  rewrite: ['locate'],
  tiers: ['locate', 'rewrite'],
  fit: ['locate', 'rewrite', 'tiers'],
  edit: ['locate', 'rewrite', 'tiers', 'fit'],
  proof: ['locate', 'rewrite', 'fit'],
  save: ['locate', 'rewrite', 'proof'],
  scan: ['locate', 'rewrite', 'proof', 'save'],
};
const srcRoom = ['daemon', 'cli', 'bin'].map((dir) => ({
  group: [`**/${dir}/**`, `../${dir}/*`],
  message: 'src/ is the engine and the shared contract: it imports no other room.',
}));
const stage = (name) => ({
  files: [`src/corrections/${name}/**`],
  rules: {
    'no-restricted-imports': [
      'error',
      {
        patterns: [
          ...srcRoom,
          ...STAGES.filter((s) => s !== name && !MAY_IMPORT[name].includes(s)).map((s) => ({
            group: [`../${s}/*`, `**/corrections/${s}/*`],
            message: `The ${name}/ stage may import only ${MAY_IMPORT[name].join(', ') || 'no other stage'} (docs/engine.md).`,
          })),
          {
            group: ['../engine.ts', '../proposal.ts', '../tasks.ts', '../damage.ts'],
            message:
              'A stage does not import the pipeline (engine.ts) or its answers; shared shapes are in correction.ts.',
          },
        ],
      },
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
  ...STAGES.map(stage),
  room(['daemon/**'], ['cli', 'bin'], 'daemon/ may import src/ only.'),
  room(
    ['cli/**'],
    ['daemon', 'bin'],
    'cli/ speaks the HTTP API through src/api-client, never daemon/ internals.',
  ),
);
