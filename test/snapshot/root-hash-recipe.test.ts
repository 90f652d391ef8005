/**
 * The README tells an auditor how to recompute a snapshot's root hash with standard tools. Its command,
 * run as written on a snapshot, must give the manifest's root_sha256 (sorting the `sha256sum` lines
 * themselves, as an earlier wording said, orders them by hash and gives another root).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { FIXTURES } from '../warehouse/helpers.js';

const README = fileURLToPath(new URL('../../README.md', import.meta.url));

it("the README's root-hash command reproduces the manifest's root_sha256", () => {
  const line = readFileSync(README, 'utf8')
    .split('\n')
    .find((l) => l.includes('LC_ALL=C sort') && l.includes('sha256sum'));
  const command = /`(cd SNAPSHOT && [^`]+)`/u.exec(line ?? '')?.[1];
  expect(command).toBeDefined();
  for (const snapshot of [FIXTURES.first, FIXTURES.second]) {
    const manifest = JSON.parse(readFileSync(path.join(snapshot, 'manifest.json'), 'utf8')) as {
      root_sha256: string;
    };
    const printed = execFileSync('bash', ['-c', command!.replace('SNAPSHOT', JSON.stringify(snapshot))], {
      encoding: 'utf8',
    });
    expect(printed.split(/\s/u)[0]).toBe(manifest.root_sha256);
  }
});
