// `npm run release`: tags the commit checked out as `v<version>` for package.json's version, the tag the upgrade and
// rollback steps of docs/operations.md name. It pushes nothing: the maintainer pushes the tag once it looks right.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';

export class ReleaseError extends Error {
  override name = 'ReleaseError';
}

function git(dir: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd: dir, encoding: 'utf8', stdio: ['pipe', 'pipe', 'pipe'] });
}

/** The text under `## <version>` in the changelog, up to the next section, if that is its newest section. */
export function changelogEntry(changelog: string, version: string): string {
  const sections = changelog.split(/^## /m).slice(1);
  const newest = sections[0]?.split('\n');
  if (newest?.[0].trim() !== version) {
    const named = sections.some((section) => section.split('\n')[0].trim() === version);
    throw new ReleaseError(
      named
        ? `CHANGELOG.md's newest section is ${newest?.[0].trim()}, not ${version}`
        : `CHANGELOG.md has no section "## ${version}"`,
    );
  }
  const entry = newest.slice(1).join('\n').trim();
  if (entry === '') throw new ReleaseError(`CHANGELOG.md's section "## ${version}" is empty`);
  return entry;
}

/**
 * Checks that the work tree is clean, that the changelog's newest section is the version's and that its tag is not
 * taken; then makes the annotated tag, with the changelog's entry as its message, and answers its name.
 */
export function release(dir: string): string {
  const changes = git(dir, 'status', '--porcelain');
  if (changes.trim() !== '') {
    throw new ReleaseError(`The work tree has changes; commit or stash them first:\n${changes.trimEnd()}`);
  }
  const { version } = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { version: string };
  const entry = changelogEntry(readFileSync(path.join(dir, 'CHANGELOG.md'), 'utf8'), version);
  const tag = `v${version}`;
  if (git(dir, 'tag', '--list', tag).trim() !== '') throw new ReleaseError(`The tag ${tag} exists already`);
  // Whitespace cleanup only: the default would drop an entry's lines that start with `#`.
  git(dir, 'tag', '--annotate', '--cleanup=whitespace', tag, '--message', `${tag}\n\n${entry}`);
  return tag;
}

if (require.main === module) {
  try {
    const dir = git(process.cwd(), 'rev-parse', '--show-toplevel').trim();
    const tag = release(dir);
    console.log(`Tagged ${tag}. Push it with: git push origin ${tag}`);
  } catch (error) {
    console.error(`release: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  }
}
