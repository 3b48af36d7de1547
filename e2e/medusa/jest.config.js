const path = require('node:path');

/**
 * The opt-in end-to-end suite on a real Medusa shop (`npm run test:medusa`); plain `jest` never finds it, since the
 * root config's roots are under test/.
 * @type {import('jest').Config}
 */
module.exports = {
  rootDir: path.resolve(__dirname, '../..'),
  roots: ['<rootDir>/e2e/medusa'],
  testEnvironment: 'node',
  testMatch: ['**/*.test.ts'],
  testPathIgnorePatterns: ['/node_modules/', '/.snapshots/'],
  modulePathIgnorePatterns: ['<rootDir>/e2e/medusa/node_modules/', '<rootDir>/e2e/medusa/.snapshots/'],
  watchPathIgnorePatterns: ['<rootDir>/e2e/medusa/'],
  transform: { '^.+\\.(t|j)sx?$': ['@swc/jest'] },
  // @middy/core is ESM-only; let swc turn it into CommonJS for jest.
  transformIgnorePatterns: ['/node_modules/(?!@middy/)'],
  moduleNameMapper: { '^@middy/core$': '<rootDir>/node_modules/@middy/core/index.js' },
  setupFiles: ['<rootDir>/test/setup-env.ts'],
  // Each file boots PostgreSQL, Medusa and our stack: one at a time suits a 2-core machine.
  maxWorkers: 1,
  // Our stack logs every request and webhook; `--silent=false` shows it when a test fails.
  silent: true,
  // A hang detector, not a speed assertion: Medusa's cold start and a 50-cart race are slow on a busy machine.
  testTimeout: 600000,
};
