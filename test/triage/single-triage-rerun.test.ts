/**
 * A single triage run again with the same change sends nothing when the journal's last word on the
 * finding is that change, applied: a user tryout found the second run sent a second PATCH, which
 * added a no-op review event (false_positive → false_positive) to the finding's history — what a
 * script of single triages re-run after an interruption does for every line, while a re-run of
 * `triage apply` sends none. Any later change of the finding in the journal sends it again, and
 * `--resend` sends it whatever the journal says (a finding changed in the service meanwhile). The
 * simulator's review history is the independent count of what reached the service.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { journalFile, readFinding, readJournalLines, run } from './helpers.js';

let sim: RunningSimulator;
let dir: string;
let id: string;

beforeAll(async () => {
  sim = await startSimulator({ seed: 11 });
  id = sim.truth.findingIds(sim.projectKeys[0] ?? '')[0] ?? '';
  dir = await mkdtemp(path.join(tmpdir(), 'airt-triage-rerun-'));
});
afterAll(async () => {
  await sim.close();
  await rm(dir, { recursive: true, force: true });
});

const events = async (): Promise<number> => (await readFinding(sim, id)).review_events.length;
const falsePositive = ['triage', '', '--status', 'false_positive', '--notes', 'benign, per docs'];
const triage = (argv: readonly string[], ...more: string[]) =>
  run(sim, dir, [argv[0]!, id, ...argv.slice(2), ...more]);

describe('triage FINDING_ID run again', () => {
  it('sends nothing the second time, says so, and journals nothing more', async () => {
    const before = await events();
    expect((await triage(falsePositive)).code).toBe(0);
    expect(await events()).toBe(before + 1);
    const journaled = (await readJournalLines(journalFile(dir), { withSending: true })).length;

    const again = await triage(falsePositive);
    expect(again.code).toBe(0);
    expect(again.out).toContain('Nothing was sent: the journal');
    expect(again.out).toContain(`this change to finding ${id} applied at`);
    expect(again.out).toContain('add --resend to send it again');
    expect(await events()).toBe(before + 1);
    expect(await readJournalLines(journalFile(dir), { withSending: true })).toHaveLength(journaled);

    const json = await triage(falsePositive, '--json');
    expect(JSON.parse(json.out)).toMatchObject({ finding_id: id, outcome: 'applied', already_applied: true });
    expect(await events()).toBe(before + 1);
  });

  it('sends it again after another change of the finding, and with --resend', async () => {
    const before = await events();
    expect((await triage(['triage', '', '--notes', 'under review'])).code).toBe(0);
    // The journal's last word is now the notes change: the false positive is sent again.
    const back = await triage(falsePositive);
    expect(back.code).toBe(0);
    expect(back.out).not.toContain('Nothing was sent');
    expect(await events()).toBe(before + 2);

    const resent = await triage(falsePositive, '--resend');
    expect(resent.code).toBe(0);
    expect(resent.out).not.toContain('Nothing was sent');
    expect(await events()).toBe(before + 3);
  });

  it('refuses --resend with triage apply (it has --resend-unknown)', async () => {
    const result = await run(sim, dir, ['triage', 'apply', 'decisions.csv', '--resend']);
    expect(result.code).toBe(2);
    expect(result.err).toContain('--resend');
  });
});
