/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.(t|j)sx?$': ['@swc/jest'] },
  // @middy/core is ESM-only; let swc turn it into CommonJS for jest.
  transformIgnorePatterns: ['/node_modules/(?!@middy/)'],
  moduleNameMapper: { '^@middy/core$': '<rootDir>/node_modules/@middy/core/index.js' },
  setupFiles: ['<rootDir>/test/setup-env.ts'],
  // A hang detector, not a speed assertion: on a busy 2-core machine the concurrency suites run 5-10x slower.
  testTimeout: 120000,
  maxWorkers: 2,
};
