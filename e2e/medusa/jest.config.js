const path = require('node:path');
const root = require('../../jest.config.js');

/**
 * The root config's `medusa` project alone, for `npm run test:medusa`: one file at a time and quiet.
 * @type {import('jest').Config}
 */
module.exports = {
  ...root.projects.find((project) => project.displayName === 'medusa'),
  rootDir: path.resolve(__dirname, '../..'),
  // Each file boots PostgreSQL, Medusa and our stack: one at a time suits a 2-core machine.
  maxWorkers: 1,
  // Our stack logs every request and webhook; `--silent=false` shows it when a test fails.
  silent: true,
};
