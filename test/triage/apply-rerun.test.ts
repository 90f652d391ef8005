/**
 * Re-running a decisions file after the finding changed, and a re-run left with held-back rows.
 *
 * - A row is "already applied" only when the journal's last word on the finding is that same change,
 *   applied (the rule of a single triage): a later change of the finding (a single triage, another
 *   file) replaced it, so the row is sent again. Before, the row was skipped because its own change
 *   was applied once, and the service kept the later value: the decision was silently lost.
 * - A re-run whose only open rows are held back (outcome unknown) is not done: it exits 3 (partial),
 *   like the run that produced the unknown outcomes. Before, it exited 0 and a script looping "until
 *   exit 0" stopped there, with the service maybe lacking the change.
 *
 * What reached the service is read on the simulator's side: the finding's status and review events.
 */
import { appendFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { planApply } from '../../src/triage/apply-plan.js';
import type { DecisionRow } from '../../src/triage/decisions-file.js';
import { formatJournalLine, type JournalEntry } from '../../src/triage/journal.js';
import { sendingEntry } from '../../src/triage/send-change.js';
import { readFinding, run } from './helpers.js';

let sim: RunningSimulator;
let dir: string;
let ids: string[];
const dirs: string[] = [];

beforeAll(async () => {
  sim = await startSimulator({ seed: 11 });
  ids = sim.projectKeys.flatMap((key) => sim.truth.findingIds(key)).slice(0, 6);
  if (ids.length < 6) throw new Error('the simulator has too few findings for this test');
});
afterAll(async () => {
  await sim.close();
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

/** A fresh directory (and so a fresh journal, `j.jsonl`) per test. */
async function freshDir(): Promise<string> {
  dir = await mkdtemp(path.join(tmpdir(), 'airt-apply-rerun-'));
  dirs.push(dir);
  return dir;
}

const JOURNAL = ['--journal', 'j.jsonl'];
const apply = (file: string, ...more: string[]) =>
  run(sim, dir, ['triage', 'apply', file, ...JOURNAL, ...more]);
const single = (id: string, ...more: string[]) => run(sim, dir, ['triage', id, ...more, ...JOURNAL]);
const state = async (id: string): Promise<{ status: string | null | undefined; events: number }> => {
  const finding = await readFinding(sim, id);
  return { status: finding.finding_status, events: finding.review_events.length };
};

async function writeDecisions(name: string, rows: readonly (readonly [string, string])[]): Promise<string> {
  const lines = rows.map(([id, status]) => `${id},${status},,,\n`);
  await writeFile(
    path.join(dir, name),
    `finding_id,finding_status,finding_type,severity,notes\n${lines.join('')}`,
  );
  return name;
}

/** A "sending" line with no outcome after it: what a run killed while the PATCH was in flight leaves. */
async function journalDanglingSending(id: string, status: 'false_positive' | 'remediated'): Promise<void> {
  const target = { org: sim.org, workspace: sim.workspace };
  const change = { findingId: id, request: { finding_status: status } };
  const line = formatJournalLine(sendingEntry(target, change, 'apply:week1.csv#1', () => new Date()));
  await appendFile(path.join(dir, 'j.jsonl'), line);
}

describe('triage apply after a later change of the finding', () => {
  it('sends the row again when a later single triage replaced it (dry run says so too)', async () => {
    await freshDir();
    const id = ids[0] ?? '';
    const week1 = await writeDecisions('week1.csv', [[id, 'false_positive']]);
    expect((await apply(week1)).code).toBe(0);
    expect(await state(id)).toMatchObject({ status: 'false_positive' });
    expect((await single(id, '--status', 'open', '--notes', 'reopened')).code).toBe(0);
    const reopened = await state(id);
    expect(reopened.status).toBe('open');

    const week3 = await writeDecisions('week3.csv', [[id, 'false_positive']]);
    const dry = await apply(week3, '--dry-run');
    expect(dry.code).toBe(0);
    expect(dry.out).toContain('1 row(s) would be sent; 0 already applied');
    expect(await state(id)).toEqual(reopened);

    const again = await apply(week3);
    expect(again.code).toBe(0);
    expect(again.out).toContain('Applied 1 of 1 row(s) sent in this run; 0 already applied earlier');
    expect(await state(id)).toEqual({ status: 'false_positive', events: reopened.events + 1 });

    // Now the journal's last word on the finding is this change, applied: nothing more is sent.
    const requests = sim.stats().requests;
    const third = await apply(week3);
    expect(third.code).toBe(0);
    expect(third.out).toContain(
      'Applied 0 of 0 row(s) sent in this run; 1 already applied earlier (skipped)',
    );
    expect(sim.stats().requests).toBe(requests);
    expect(await state(id)).toEqual({ status: 'false_positive', events: reopened.events + 1 });
  });

  it('sends the row again when another decisions file changed the finding since', async () => {
    await freshDir();
    const [a, b] = [ids[1] ?? '', ids[2] ?? ''];
    const first = await writeDecisions('first.csv', [
      [a, 'false_positive'],
      [b, 'remediated'],
    ]);
    expect((await apply(first)).code).toBe(0);
    expect((await apply(await writeDecisions('second.csv', [[a, 'open']]))).code).toBe(0);
    const before = await state(a);
    expect(before.status).toBe('open');
    const untouched = await state(b);

    const result = await apply(first);
    expect(result.code).toBe(0);
    expect(result.out).toContain(
      'Applied 1 of 1 row(s) sent in this run; 1 already applied earlier (skipped)',
    );
    expect(await state(a)).toEqual({ status: 'false_positive', events: before.events + 1 });
    expect(await state(b)).toEqual(untouched);
  });

  it('sends a row whose unknown outcome a later change of the finding made moot', async () => {
    await freshDir();
    const id = ids[3] ?? '';
    await journalDanglingSending(id, 'false_positive');
    // Whatever the lost PATCH did, this later change replaced it.
    expect((await single(id, '--status', 'open', '--notes', 'reopened')).code).toBe(0);
    const before = await state(id);
    const week3 = await writeDecisions('week3.csv', [[id, 'false_positive']]);
    const result = await apply(week3);
    expect(result.code).toBe(0);
    expect(result.out).not.toContain('held back');
    expect(await state(id)).toEqual({ status: 'false_positive', events: before.events + 1 });
  });
});

describe('triage apply re-run with held-back rows', () => {
  it('exits 3 when the only open rows are held back as outcome unknown, and sends nothing', async () => {
    await freshDir();
    const [held, done] = [ids[4] ?? '', ids[5] ?? ''];
    const file = await writeDecisions('week1.csv', [
      [held, 'remediated'],
      [done, 'false_positive'],
    ]);
    // The row of `done` applied; the run was killed while the PATCH of `held` was in flight.
    expect((await apply(await writeDecisions('done.csv', [[done, 'false_positive']]))).code).toBe(0);
    await journalDanglingSending(held, 'remediated');
    const before = await state(held);
    const requests = sim.stats().requests;

    const result = await apply(file);
    expect(result.code).toBe(3);
    expect(result.out).toContain(
      'Applied 0 of 0 row(s) sent in this run; 1 already applied earlier (skipped); ' +
        '1 held back (unknown outcome in an earlier run)',
    );
    expect(result.out).toContain('Unknown outcome in an earlier run, held back (1)');
    expect(result.err).toContain('1 held back with an unknown earlier outcome');
    expect(sim.stats().requests).toBe(requests);
    expect(await state(held)).toEqual(before);

    // --resend-unknown (after the operator checked the change is missing) sends it, and the file is done.
    const resent = await apply(file, '--resend-unknown');
    expect(resent.code).toBe(0);
    expect(await state(held)).toEqual({ status: 'remediated', events: before.events + 1 });
  });
});

describe("planApply: the journal's last word on the finding decides", () => {
  const ID = '0a1b2c3d-0000-4000-8000-00000000000a';
  const target = { org: 'acme', workspace: 'main' };
  const row: DecisionRow = { row: 1, findingId: ID, request: { finding_status: 'false_positive' } };
  const line = (outcome: JournalEntry['outcome'], status = 'false_positive'): JournalEntry => ({
    journal: 'airt-triage/1',
    time: '2026-01-02T03:04:05.000Z',
    ...target,
    finding_id: ID,
    request: { finding_status: status as 'false_positive' },
    outcome,
    http_status: outcome === 'applied' ? 200 : null,
    error: null,
    finding: null,
    source: 'cli',
  });
  const verdict = (journal: JournalEntry[], resendUnknown = false): string => {
    const plan = planApply([row], target, journal, { resendUnknown });
    if (plan.alreadyApplied.length > 0) return 'skipped';
    return plan.unresolvedUnknown.length > 0 ? 'held back' : 'sent';
  };

  it('skips only a change that is the last word, applied', () => {
    expect(verdict([])).toBe('sent');
    expect(verdict([line('sending'), line('applied')])).toBe('skipped');
    expect(verdict([line('applied'), line('applied', 'open')])).toBe('sent');
    expect(verdict([line('applied'), line('applied', 'open'), line('applied')])).toBe('skipped');
    // A later change whose PATCH may or may not have arrived may have replaced it.
    expect(verdict([line('applied'), line('sending', 'open')])).toBe('sent');
    // The same change tried again in a row: applied wins, as in the journal index.
    expect(verdict([line('applied'), line('failed')])).toBe('skipped');
  });

  it('holds back an unknown outcome only while it is the last word', () => {
    expect(verdict([line('sending')])).toBe('held back');
    expect(verdict([line('sending')], true)).toBe('sent');
    expect(verdict([line('outcome_unknown'), line('failed')])).toBe('held back');
    expect(verdict([line('outcome_unknown'), line('applied', 'open')])).toBe('sent');
    // Applied once, changed, then sent again with an unknown outcome: the finding may hold either.
    expect(verdict([line('applied'), line('applied', 'open'), line('outcome_unknown')])).toBe('held back');
  });
});
