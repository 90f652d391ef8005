/**
 * Renewing a dated risk acceptance: the same status with a new expiry, owner or reason is a new change
 * (journaled with the new acceptance), not a row "already applied"; the identical row stays skipped.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { makeTempDir } from '../helpers/temp-dirs.js';
import { journalFile, readJournalLines, run } from './helpers.js';

let sim: RunningSimulator;
let id: string;

beforeAll(async () => {
  sim = await startSimulator({ seed: 11 });
  const first = sim.projectKeys.flatMap((key) => sim.truth.findingIds(key))[0];
  if (first === undefined) throw new Error('the simulator has no finding for this test');
  id = first;
});
afterAll(async () => {
  await sim.close();
});

function decisions(until: string, reason: string, owner: string): string {
  return (
    'finding_id,finding_status,accepted_until,acceptance_reason,accepted_by\n' +
    `${id},accepted_risk,${until},${reason},${owner}\n`
  );
}

describe('re-applying accepted_risk with a new acceptance', () => {
  it('a decisions file with a new date, owner or reason is sent and journaled; the same row is skipped', async () => {
    const dir = await makeTempDir('airt-accept-renew-');
    const file = path.join(dir, 'accept.csv');
    await writeFile(file, decisions('2026-12-31', 'vendor fix due', 'alice'));
    expect((await run(sim, dir, ['triage', 'apply', 'accept.csv'])).code).toBe(0);

    // The identical row again: already applied, nothing sent.
    let before = sim.stats().requests;
    const same = await run(sim, dir, ['triage', 'apply', 'accept.csv']);
    expect(same.code).toBe(0);
    expect(same.out).toContain('1 already applied earlier (skipped)');
    expect(sim.stats().requests - before).toBe(0);

    // A renewal: same status, new expiry and owner.
    await writeFile(file, decisions('2027-03-31', 'vendor fix slipped', 'bob'));
    before = sim.stats().requests;
    const renewed = await run(sim, dir, ['triage', 'apply', 'accept.csv']);
    expect(renewed.code).toBe(0);
    expect(renewed.out).toContain('Applied 1 of 1 row(s) sent in this run; 0 already applied earlier');
    expect(sim.stats().requests - before).toBe(1);

    const applied = (await readJournalLines(journalFile(dir))).filter((line) => line.outcome === 'applied');
    expect(applied.map((line) => line.acceptance)).toEqual([
      { owner: 'alice', reason: 'vendor fix due', until: '2026-12-31' },
      { owner: 'bob', reason: 'vendor fix slipped', until: '2027-03-31' },
    ]);
    // The request stays what the service takes: the status only.
    expect(applied.map((line) => line.request)).toEqual([
      { finding_status: 'accepted_risk' },
      { finding_status: 'accepted_risk' },
    ]);
  });
});
