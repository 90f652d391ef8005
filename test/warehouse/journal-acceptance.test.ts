/**
 * Dated risk acceptances from a triage journal (`load --journal`): stored in risk_acceptances once
 * (idempotent), and judged by metric_findings at each snapshot's fetch time — accepted (not open)
 * while it holds, open again (status open) once its last day is over.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadTriageJournal } from '../../src/warehouse/journal.js';
import { loadSnapshots } from '../../src/warehouse/loader.js';
import { FIXTURES, rows, tempDir } from './helpers.js';

const RUN = 'f0000000-0000-4000-8000-000000001002';
const SECOND = '20260315T060000Z-second';

async function journalLine(until: string, time: string): Promise<string> {
  const detail = JSON.parse(
    await readFile(path.join(FIXTURES.second, 'findings/f0000000-0000-4000-8000-000000001001.json'), 'utf8'),
  ) as Record<string, unknown>;
  return JSON.stringify({
    journal: 'airt-triage/1',
    time,
    org: 'acme',
    workspace: 'main',
    finding_id: RUN,
    request: { finding_status: 'accepted_risk' },
    outcome: 'applied',
    http_status: 200,
    error: null,
    finding: { ...detail, id: RUN, finding_status: 'accepted_risk', review_events: [] },
    source: 'cli',
    acceptance: { owner: 'ciso@acme.example', reason: 'filter in front | <b>', until },
  });
}

describe('risk acceptances loaded from a journal', () => {
  let work: Awaited<ReturnType<typeof tempDir>>;
  let db: string;

  beforeAll(async () => {
    work = await tempDir();
    db = path.join(work.dir, 'airt.duckdb');
    await loadSnapshots(db, [FIXTURES.first, FIXTURES.second]);
  });
  afterAll(() => work.cleanup());

  const state = () =>
    rows(
      db,
      `SELECT acceptance_state, finding_status, is_open, accepted_by, accepted_until
       FROM metric_findings WHERE snapshot_id = '${SECOND}' AND attack_run_id = '${RUN}'`,
    );

  it('holds until its last day: the finding is not open', async () => {
    const journal = path.join(work.dir, 'holds.jsonl');
    await writeFile(journal, `${await journalLine('2026-03-15', '2026-03-14T10:00:00Z')}\n`);
    expect(await loadTriageJournal(db, journal)).toMatchObject({ loaded: 1 });
    expect(await loadTriageJournal(db, journal)).toMatchObject({ loaded: 0, alreadyLoaded: 1 });
    expect(
      await rows(
        db,
        `SELECT origin, snapshot_id, accepted_until, strftime(expires_at, '%Y-%m-%dT%H:%M:%SZ') AS expires_at FROM risk_acceptances`,
      ),
    ).toEqual([
      {
        origin: 'journal',
        snapshot_id: null,
        accepted_until: '2026-03-15',
        expires_at: '2026-03-16T00:00:00Z',
      },
    ]);
    expect(await state()).toEqual([
      {
        acceptance_state: 'accepted',
        finding_status: 'accepted_risk',
        is_open: false,
        accepted_by: 'ciso@acme.example',
        accepted_until: '2026-03-15',
      },
    ]);
  });

  it('a newer acceptance that ended before the snapshot leaves the finding open again', async () => {
    const journal = path.join(work.dir, 'ended.jsonl');
    await writeFile(journal, `${await journalLine('2026-03-14', '2026-03-14T11:00:00Z')}\n`);
    await loadTriageJournal(db, journal);
    expect(await state()).toEqual([
      {
        acceptance_state: 'expired',
        finding_status: 'open',
        is_open: true,
        accepted_by: 'ciso@acme.example',
        accepted_until: '2026-03-14',
      },
    ]);
  });

  it('an acceptance written after a snapshot was fetched leaves that snapshot as it was', async () => {
    const before = await state();
    const journal = path.join(work.dir, 'later.jsonl');
    // Renewed through the year after the second snapshot's fetch (2026-03-15): later snapshots use it.
    await writeFile(journal, `${await journalLine('2026-12-31', '2026-03-20T10:00:00Z')}\n`);
    expect(await loadTriageJournal(db, journal)).toMatchObject({ loaded: 1 });
    expect(await state()).toEqual(before);
    expect(
      await rows(
        db,
        `SELECT count(*)::INTEGER AS n FROM metric_findings WHERE accepted_until = '2026-12-31' OR acceptance_state IS NOT NULL AND snapshot_id <> '${SECOND}'`,
      ),
    ).toEqual([{ n: 0 }]);
  });
});
