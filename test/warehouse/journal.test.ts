import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadTriageJournal } from '../../src/warehouse/journal.js';
import { loadSnapshots } from '../../src/warehouse/loader.js';
import { readNamedQuery } from '../../src/warehouse/named-queries.js';
import { FIXTURES, rows, tableCounts, tempDir } from './helpers.js';

const RUN = 'f0000000-0000-4000-8000-000000001002';

async function journalLines(): Promise<string> {
  const detail = JSON.parse(
    await readFile(path.join(FIXTURES.second, 'findings/f0000000-0000-4000-8000-000000001001.json'), 'utf8'),
  ) as Record<string, unknown>;
  const event = {
    original_finding_type: 'jailbreak',
    original_severity: 'high',
    original_status: 'open',
    updated_finding_type: 'jailbreak',
    updated_severity: 'high',
    updated_status: 'remediated',
    reasoning: 'Fixed in prompt v4 | see <ticket>',
    updated_by: 'lead@acme.example',
    updated_at: '2026-03-16T10:00:00Z',
  };
  const finding = {
    ...detail,
    id: RUN,
    severity: 'high',
    finding_status: 'remediated',
    notes: 'Fixed in prompt v4',
    review_events: [event],
  };
  const line = (outcome: string, extra: Record<string, unknown>) =>
    JSON.stringify({
      journal: 'airt-triage/1',
      time: '2026-03-16T10:00:01Z',
      org: 'acme',
      workspace: 'main',
      finding_id: RUN,
      request: { finding_status: 'remediated', notes: 'Fixed in prompt v4' },
      outcome,
      http_status: outcome === 'applied' ? 200 : 502,
      error: null,
      finding: null,
      source: 'cli',
      ...extra,
    });
  return [
    line('failed', { error: 'bad_gateway_error' }),
    line('applied', { finding }),
    line('outcome_unknown', { time: '2026-03-16T10:00:02Z' }),
    '{"journal":"airt-triage/1","time":"2026-03-16T10:0', // torn by an interrupted write
  ].join('\n');
}

describe('loading a triage journal', () => {
  let work: Awaited<ReturnType<typeof tempDir>>;
  let db: string;
  let journal: string;

  beforeAll(async () => {
    work = await tempDir();
    db = path.join(work.dir, 'airt.duckdb');
    journal = path.join(work.dir, 'triage.jsonl');
    await writeFile(journal, await journalLines());
    await loadSnapshots(db, [FIXTURES.first, FIXTURES.second]);
  });
  afterAll(() => work.cleanup());

  it('loads applied lines as findings and review events, counts the rest, skips a torn last line', async () => {
    const result = await loadTriageJournal(db, journal);
    expect(result).toMatchObject({ lines: 4, loaded: 1, alreadyLoaded: 0, notApplied: 2, reviewEvents: 1 });
    expect(result.warnings).toEqual([expect.stringContaining(':4: incomplete last line')]);
    expect(
      await rows(
        db,
        `SELECT snapshot_id, project_key, finding_status, severity, journal_time FROM findings WHERE origin = 'journal'`,
      ),
    ).toEqual([
      {
        snapshot_id: null,
        project_key: 'payments-bot',
        finding_status: 'remediated',
        severity: 'high',
        journal_time: '2026-03-16T10:00:01Z',
      },
    ]);
    expect(
      await rows(db, `SELECT finding_status, origin FROM finding_triage WHERE attack_run_id = '${RUN}'`),
    ).toEqual([{ finding_status: 'remediated', origin: 'journal' }]);
    // In no snapshot's files: no snapshot's figures change.
    const open = await rows(db, (await readNamedQuery('top_open_findings')).sql.trim().replace(/;$/, ''));
    expect(open.map((f) => f.attack_run_id)).toContain(RUN);
  });

  it("changes no snapshot's figures, whenever its lines were written", async () => {
    const statusBySnapshot = () =>
      rows(
        db,
        `SELECT snapshot_id, finding_status, is_open FROM metric_findings WHERE attack_run_id = '${RUN}' ORDER BY ALL`,
      );
    const before = await statusBySnapshot();
    expect(before.map((r) => r.finding_status)).toEqual(['open', 'open']);
    // Triaged between the two snapshots' fetches (2026-03-01 and 2026-03-15), but in neither's files:
    // a snapshot's figures are a function of its files.
    const between = path.join(work.dir, 'between.jsonl');
    const applied = JSON.parse((await journalLines()).split('\n')[1]!) as { time: string };
    applied.time = '2026-03-10T09:00:00Z';
    await writeFile(between, `${JSON.stringify(applied)}\n`);
    expect(await loadTriageJournal(db, between)).toMatchObject({ loaded: 1 });
    expect(await statusBySnapshot()).toEqual(before);
    expect(
      await rows(db, `SELECT finding_status, origin FROM finding_triage WHERE attack_run_id = '${RUN}'`),
    ).toEqual([{ finding_status: 'remediated', origin: 'journal' }]);
  });

  it('is idempotent', async () => {
    const before = await tableCounts(db);
    const again = await loadTriageJournal(db, journal);
    expect(again).toMatchObject({ loaded: 0, alreadyLoaded: 1, reviewEvents: 0 });
    const after = await tableCounts(db);
    expect(after.findings).toBe(before.findings);
    expect(after.review_events).toBe(before.review_events);
  });

  it('refuses a malformed line in the middle, naming file and line', async () => {
    const bad = path.join(work.dir, 'bad.jsonl');
    await writeFile(bad, `${(await journalLines()).split('\n')[0]}\n{oops\n{"journal":"airt-triage/1"}\n`);
    await expect(loadTriageJournal(db, bad)).rejects.toThrow(
      /Malformed JSON in .*bad\.jsonl:2 at line 1, column 2/,
    );
  });

  it('keeps the original of a lone surrogate in a journal line (stored as U+FFFD, listed in altered_values)', async () => {
    const odd = path.join(work.dir, 'odd.jsonl');
    const applied = JSON.parse((await journalLines()).split('\n')[1]!) as {
      time: string;
      finding: { notes: string };
    };
    applied.time = '2026-03-17T08:00:00Z';
    applied.finding.notes = 'Fixed \ud83e in v5';
    // JSON.stringify writes the lone surrogate as the escape \ud83e, as another tool's journal would.
    await writeFile(odd, `${JSON.stringify(applied)}\n`);
    const result = await loadTriageJournal(db, odd);
    expect(result).toMatchObject({ loaded: 1 });
    expect(result.warnings).toEqual([expect.stringMatching(/1 value\(s\) held lone surrogates/u)]);
    expect(
      await rows(
        db,
        `SELECT notes FROM findings WHERE origin = 'journal' AND journal_time = '2026-03-17T08:00:00Z'`,
      ),
    ).toEqual([{ notes: 'Fixed \ufffd in v5' }]);
    expect(
      await rows(db, `SELECT snapshot_id, file, json_path, table_name, original_json FROM altered_values`),
    ).toEqual([
      {
        snapshot_id: null,
        file: `${odd}:1`,
        json_path: '$.finding.notes',
        table_name: null,
        original_json: JSON.stringify('Fixed \ud83e in v5'),
      },
    ]);
  });
});
