/**
 * How `triage apply` words a row's failure: the CLI's table names the CLI's flag (`--base-url`), the
 * journal (read later by the library, the CLI and a run alike) says what to check in plain words, and
 * neither speaks the library's `options.baseUrl`.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { startSimulator } from '../../src/simulator/index.js';
import { journalFile, readJournalLines, run } from './helpers.js';

let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'airt-apply-wording-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

it('names --base-url in the table and plain words in the journal when the service refuses the connection', async () => {
  const sim = await startSimulator({ seed: 11 });
  const ids = sim.projectKeys.flatMap((key) => sim.truth.findingIds(key)).slice(0, 2);
  // Closed: its port refuses the connection, so nothing can have been changed.
  await sim.close();
  await writeFile(
    path.join(dir, 'decisions.csv'),
    ['finding_id,finding_status', ...ids.map((id) => `${id},false_positive`)].join('\n') + '\n',
  );

  const result = await run(sim, dir, ['triage', 'apply', 'decisions.csv']);

  expect(result.code).not.toBe(0);
  const shown = result.out + result.err;
  expect(shown).toContain('--base-url');
  expect(shown).not.toContain('options.');
  const failed = (await readJournalLines(journalFile(dir))).filter((line) => line.outcome === 'failed');
  expect(failed.length).toBeGreaterThan(0);
  for (const line of failed) {
    expect(line.error).toContain("the service's base URL");
    expect(line.error).not.toMatch(/options\.|--base-url/u);
  }
});
