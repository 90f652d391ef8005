/**
 * Dated risk acceptances. A snapshot carries those the triage journal held when it was taken
 * (triage/acceptances.json); its figures judge them at its fetch time — accepted (not open) while
 * one holds, open again (status open) once its last day is over — and use no other acceptance. One
 * loaded from a journal (`load --journal`) is stored in risk_acceptances once (idempotent) and
 * changes no snapshot's figures: a snapshot's figures are a function of its files.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadTriageJournal } from '../../src/warehouse/journal.js';
import { loadSnapshots } from '../../src/warehouse/loader.js';
import { FIXTURES, rows, snapshotVariant, tempDir } from './helpers.js';

/** Triaged accepted_risk in the second fixture's findings/. */
const RUN = 'f0000000-0000-4000-8000-000000003001';
/** The same snapshot fetched while its acceptance holds, and after its last day. */
const HOLDS = '20260315T070000Z-holds';
const ENDED = '20260316T070000Z-ended';

const ACCEPTANCE = {
  finding_id: RUN,
  owner: 'ciso@acme.example',
  reason: 'filter in front | <b>',
  until: '2026-03-15',
  accepted_at: '2026-03-14T10:00:00Z',
  source: 'cli',
};

/** The second fixture fetched at `finishedAt`, carrying ACCEPTANCE in triage/acceptances.json. */
function withAcceptance(into: string, id: string, finishedAt: string): Promise<string> {
  return snapshotVariant(FIXTURES.second, into, id, finishedAt, async (dir, manifest) => {
    await mkdir(path.join(dir, 'triage'), { recursive: true });
    await writeFile(path.join(dir, 'triage/acceptances.json'), `${JSON.stringify([ACCEPTANCE], null, 2)}\n`);
    const finding = manifest.files.find((f) => f.kind === 'finding');
    if (!finding) throw new Error('the fixture has no finding file to copy the shape of');
    const { finding_id: _findingId, ...shape } = finding;
    const entry = {
      ...shape,
      path: 'triage/acceptances.json',
      kind: 'risk_acceptances' as const,
      request: null,
      fetched_at: ACCEPTANCE.accepted_at,
    };
    // Listed in the manifest on disk (snapshotVariant re-seals what is there) and in the one it keeps.
    const file = path.join(dir, 'manifest.json');
    const onDisk = JSON.parse(await readFile(file, 'utf8')) as typeof manifest;
    onDisk.files.push(entry);
    await writeFile(file, `${JSON.stringify(onDisk, null, 2)}\n`);
    manifest.files.push(entry);
  });
}

async function journalLine(until: string, time: string): Promise<string> {
  const detail = JSON.parse(
    await readFile(path.join(FIXTURES.second, `findings/${RUN}.json`), 'utf8'),
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
    finding: { ...detail, review_events: [] },
    source: 'cli',
    acceptance: { owner: 'ciso@acme.example', reason: 'renewed', until },
  });
}

describe('dated risk acceptances', () => {
  let work: Awaited<ReturnType<typeof tempDir>>;
  let db: string;

  beforeAll(async () => {
    work = await tempDir();
    db = path.join(work.dir, 'airt.duckdb');
    const holds = await withAcceptance(work.dir, HOLDS, '2026-03-15T07:00:00.000Z');
    const ended = await withAcceptance(work.dir, ENDED, '2026-03-16T07:00:00.000Z');
    await loadSnapshots(db, [FIXTURES.first, FIXTURES.second, holds, ended]);
  });
  afterAll(() => work.cleanup());

  const states = () =>
    rows(
      db,
      `SELECT snapshot_id, acceptance_state, finding_status, is_open, accepted_by, accepted_until
       FROM metric_findings WHERE attack_run_id = '${RUN}' ORDER BY snapshot_id`,
    );

  it("are judged at each snapshot's fetch time, from that snapshot's own acceptances", async () => {
    expect(
      await rows(
        db,
        `SELECT origin, snapshot_id, accepted_until, strftime(expires_at, '%Y-%m-%dT%H:%M:%SZ') AS expires_at
         FROM risk_acceptances ORDER BY snapshot_id`,
      ),
    ).toEqual(
      [HOLDS, ENDED].sort().map((snapshot_id) => ({
        origin: 'snapshot',
        snapshot_id,
        accepted_until: '2026-03-15',
        expires_at: '2026-03-16T00:00:00Z',
      })),
    );
    const accepted = { accepted_by: 'ciso@acme.example', accepted_until: '2026-03-15' };
    const none = { acceptance_state: null, accepted_by: null, accepted_until: null };
    expect(await states()).toEqual([
      { snapshot_id: '20260301T060000Z-first', finding_status: 'open', is_open: true, ...none },
      // Its findings/ says accepted_risk, with no dated acceptance: it stays open, as undated ones do.
      { snapshot_id: '20260315T060000Z-second', finding_status: 'accepted_risk', is_open: true, ...none },
      {
        snapshot_id: HOLDS,
        acceptance_state: 'accepted',
        finding_status: 'accepted_risk',
        is_open: false,
        ...accepted,
      },
      { snapshot_id: ENDED, acceptance_state: 'expired', finding_status: 'open', is_open: true, ...accepted },
    ]);
  });

  it('loaded from a journal, are stored once and change no snapshot', async () => {
    const before = await states();
    const journal = path.join(work.dir, 'renewed.jsonl');
    // Written before every snapshot's fetch, renewing through the year: still not in any snapshot's files.
    await writeFile(journal, `${await journalLine('2026-12-31', '2026-03-14T11:00:00Z')}\n`);
    expect(await loadTriageJournal(db, journal)).toMatchObject({ loaded: 1 });
    expect(await loadTriageJournal(db, journal)).toMatchObject({ loaded: 0, alreadyLoaded: 1 });
    expect(
      await rows(
        db,
        `SELECT origin, snapshot_id, accepted_until FROM risk_acceptances WHERE origin = 'journal'`,
      ),
    ).toEqual([{ origin: 'journal', snapshot_id: null, accepted_until: '2026-12-31' }]);
    expect(await states()).toEqual(before);
  });
});
