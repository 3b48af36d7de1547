/** What every project shares: the swc transform, the module map and the environment set-up. */
const shared = {
  testEnvironment: 'node',
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.(t|j)sx?$': ['@swc/jest'] },
  // @middy/core is ESM-only; let swc turn it into CommonJS for jest.
  transformIgnorePatterns: ['/node_modules/(?!@middy/)'],
  moduleNameMapper: { '^@middy/core$': '<rootDir>/node_modules/@middy/core/index.js' },
  setupFiles: ['<rootDir>/test/setup-env.ts'],
};

/** The folders of the slow projects: whole local stacks, the short soak and the bench smoke, and a real browser. */
const LOCAL = ['local', 'soak', 'bench'];
const BROWSER = ['browser'];

/**
 * The end-to-end suite on a real Medusa shop, whose own install (npm ci runs it) sits in e2e/medusa. `npm test` runs
 * it after the other projects, so that its database and servers never share the cores with the browser tests.
 */
const MEDUSA = {
  ...shared,
  displayName: 'medusa',
  roots: ['<rootDir>/e2e/medusa'],
  testPathIgnorePatterns: ['/node_modules/', '/.snapshots/'],
  modulePathIgnorePatterns: ['<rootDir>/e2e/medusa/node_modules/', '<rootDir>/e2e/medusa/.snapshots/'],
  globalSetup: '<rootDir>/e2e/medusa/support/build-provider.ts',
  // Only the root config's testTimeout counts, and the other projects' hang detector is too short for Medusa.
  setupFilesAfterEnv: ['<rootDir>/e2e/medusa/support/timeouts.ts'],
};

/**
 * Projects so that `npm run test:unit` runs the fast tests alone (`--selectProjects unit`); plain `jest` runs them
 * all.
 * @type {import('jest').Config}
 */
module.exports = {
  projects: [
    {
      ...shared,
      displayName: 'unit',
      roots: ['<rootDir>/test'],
      testPathIgnorePatterns: ['/node_modules/', `<rootDir>/test/(${[...LOCAL, ...BROWSER].join('|')})/`],
    },
    { ...shared, displayName: 'local', roots: LOCAL.map((folder) => `<rootDir>/test/${folder}`) },
    { ...shared, displayName: 'browser', roots: BROWSER.map((folder) => `<rootDir>/test/${folder}`) },
    MEDUSA,
  ],
  // A hang detector, not a speed assertion: on a busy 2-core machine the concurrency suites run 5-10x slower.
  testTimeout: 120000,
  maxWorkers: 2,
};
