import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// Dependencies point one way: functions → http/domain → ports ← adapters (processing/, store/, secrets/, webhooks/). Each entry
// names what a folder's files may not import, as a pattern on the import path; type imports count too. test/,
// local/, bench/ and sandbox/ are free; packages/ stand alone. test/lint/dependency-direction.test.ts shows each rule at work.
const STACK = {
  regex: String.raw`^(\.\./)+lib/(?!routes$)`,
  message:
    'Only lib/ and bin/ import the stack; others may read the plain route table, lib/routes.ts, alone.',
};
const LAYERS = [
  {
    files: ['domain/**'],
    patterns: [
      { regex: String.raw`^\.\./`, message: 'domain/ imports only domain/: it owns its types and errors.' },
    ],
  },
  {
    files: ['processing/**', 'store/**', 'secrets/**', 'webhooks/**'],
    patterns: [
      {
        regex: String.raw`^\.\./(?!domain/(ports|model|webhook-model|errors|decimal|stores|ids|countries)$)`,
        message:
          "An adapter imports its own folder and the domain's ports, types, ids, stores, errors, money arithmetic and country codes, nothing else.",
      },
    ],
  },
  {
    files: ['http/**'],
    ignores: ['http/schemas/fields.ts'],
    patterns: [
      {
        // runtime/invocation (the per-invocation deadline and log context) only: the rest of runtime/ builds adapters.
        regex: String.raw`^(\.\./)+(functions|processing|store|secrets|webhooks)/|^(\.\./)+runtime/(?!invocation$)`,
        message: "http/ reaches the service and the stores through the domain's ports, never an adapter.",
      },
      STACK,
    ],
  },
  {
    // The one exception: the amount rule (processing/money.ts) serves input validation and the client alike.
    files: ['http/schemas/fields.ts'],
    patterns: [
      {
        regex: String.raw`^(\.\./)+(functions|store|secrets|runtime)/|^(\.\./)+processing/(?!money$|errors$)`,
        message: "http/ reaches the service and the stores through the domain's ports, never an adapter.",
      },
      STACK,
    ],
  },
  {
    files: ['runtime/**'],
    patterns: [
      { regex: String.raw`^\.\./functions/`, message: 'runtime/ wires what functions use, not the reverse.' },
      STACK,
    ],
  },
  {
    files: ['observability/**'],
    patterns: [
      {
        regex: String.raw`^\.\./`,
        message: 'observability/ imports only observability/: every other folder may log.',
      },
    ],
  },
  { files: ['functions/**', 'sandbox/**'], patterns: [STACK] },
  {
    files: ['packages/**'],
    patterns: [
      {
        regex: String.raw`^\.\./\.\./`,
        message:
          'A package is published alone: it imports its own files and its dependencies, nothing of the plugin.',
      },
    ],
  },
];

export default tseslint.config(
  {
    ignores: [
      'node_modules/',
      'cdk.out/',
      'bench/out/',
      'coverage/',
      'test-artifacts/',
      // The Medusa shop's install, build and database snapshots (scripts/ensure-medusa.sh).
      'e2e/medusa/node_modules/',
      'e2e/medusa/.medusa/',
      'e2e/medusa/.snapshots/',
      '**/*.js',
      '**/*.mjs',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-console': 'off',
    },
  },
  ...LAYERS.map(({ files, ignores, patterns }) => ({
    files,
    ...(ignores ? { ignores } : {}),
    rules: { 'no-restricted-imports': ['error', { patterns }] },
  })),
  {
    // Tests read loosely typed JSON answers.
    files: ['test/**/*.ts', 'e2e/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
);
