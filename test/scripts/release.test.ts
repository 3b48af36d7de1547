// The release script runs against a scratch git repository, never this one: its tags stay as they are.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { changelogEntry, release } from '../../scripts/release';

const CHANGELOG = `# Changelog

Every release of the plugin, newest first.

## 1.2.0

Faster polls. No step of its own on upgrade.

- A poll reads one item.

## 1.1.0

The first release.
`;

let dir: string;

function git(...args: string[]): string {
  return execFileSync('git', args, { cwd: dir, encoding: 'utf8' });
}

function write(file: string, text: string): void {
  writeFileSync(path.join(dir, file), text);
}

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'release-'));
  git('init', '--quiet');
  git('config', 'user.name', 'Release Test');
  git('config', 'user.email', 'release@example.test');
  git('config', 'commit.gpgSign', 'false');
  git('config', 'tag.gpgSign', 'false');
  write('package.json', JSON.stringify({ name: 'plugin', version: '1.2.0' }, null, 2));
  write('CHANGELOG.md', CHANGELOG);
  git('add', '.');
  git('commit', '--quiet', '--message', 'Release 1.2.0');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const tags = () => git('tag', '--list').trim();

test('tags the commit checked out v<version>, annotated with its changelog entry', () => {
  expect(release(dir)).toBe('v1.2.0');
  expect(git('cat-file', '-t', 'v1.2.0').trim()).toBe('tag');
  expect(git('rev-parse', 'v1.2.0^{commit}')).toBe(git('rev-parse', 'HEAD'));
  expect(git('tag', '--list', '--format=%(contents)', 'v1.2.0').trim()).toBe(
    'v1.2.0\n\nFaster polls. No step of its own on upgrade.\n\n- A poll reads one item.',
  );
});

test('refuses a work tree with changes, or with a file git does not track yet, and tags nothing', () => {
  write('package.json', JSON.stringify({ name: 'plugin', version: '1.2.0', private: true }));
  expect(() => release(dir)).toThrow(/work tree has changes/);
  git('checkout', '--', 'package.json');
  write('notes.txt', 'draft');
  expect(() => release(dir)).toThrow(/notes\.txt/);
  expect(tags()).toBe('');
});

test('refuses a version whose section is missing, not the newest, or empty, and tags nothing', () => {
  expect(() => changelogEntry(CHANGELOG, '1.3.0')).toThrow('CHANGELOG.md has no section "## 1.3.0"');
  expect(() => changelogEntry(CHANGELOG, '1.1.0')).toThrow(
    "CHANGELOG.md's newest section is 1.2.0, not 1.1.0",
  );
  expect(() => changelogEntry('## 1.2.0\n\n## 1.1.0\n', '1.2.0')).toThrow('is empty');
  write('package.json', JSON.stringify({ name: 'plugin', version: '1.3.0' }));
  git('commit', '--quiet', '--all', '--message', 'Version 1.3.0, no entry yet');
  expect(() => release(dir)).toThrow('no section "## 1.3.0"');
  expect(tags()).toBe('');
});

test('refuses a tag that exists, and leaves it where it was', () => {
  git('tag', 'v1.2.0', 'HEAD');
  git('commit', '--quiet', '--allow-empty', '--message', 'Later');
  expect(() => release(dir)).toThrow('The tag v1.2.0 exists already');
  expect(git('rev-parse', 'v1.2.0')).toBe(git('rev-parse', 'HEAD~1'));
});

test('npm run release says what it tagged, and fails with the reason when it cannot', () => {
  const script = path.join(__dirname, '..', '..', 'scripts', 'release.ts');
  const tsx = path.join(__dirname, '..', '..', 'node_modules', '.bin', 'tsx');
  const run = () => execFileSync(tsx, [script], { cwd: dir, encoding: 'utf8', stdio: 'pipe' });
  expect(run()).toBe('Tagged v1.2.0. Push it with: git push origin v1.2.0\n');
  expect(run).toThrow(/release: The tag v1\.2\.0 exists already/);
});
