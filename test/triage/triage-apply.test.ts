import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { stringify } from 'csv-stringify/sync';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApiClient } from '../../src/api/client.js';
import { EXIT, InterruptedError } from '../../src/errors.js';
import { startSimulator, type RunningSimulator, type SimulatorOptions } from '../../src/simulator/index.js';
import { applyDecisions } from '../../src/triage/apply-decisions.js';
import { readDecisionsFile } from '../../src/triage/decisions-file.js';
import { journalFile, readFinding, readJournalLines, run } from './helpers.js';

const STATUSES = ['false_positive', 'accepted_risk', 'remediated', 'incorrect_scoring'] as const;
const ROWS = 12;

let dir: string;
const sims: RunningSimulator[] = [];

beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'airt-apply-'));
});
afterEach(async () => {
  await Promise.all(sims.splice(0).map((s) => s.close()));
  await rm(dir, { recursive: true, force: true });
});

async function simulator(options: SimulatorOptions = {}): Promise<{ sim: RunningSimulator; ids: string[] }> {
  const sim = await startSimulator({ seed: 11, ...options });
  sims.push(sim);
  const ids = sim.projectKeys.flatMap((key) => sim.truth.findingIds(key)).slice(0, ROWS);
  if (ids.length < ROWS) throw new Error('the simulator has too few findings for this test');
  return { sim, ids };
}

/** A decisions CSV: one row per id, notes with quotes, commas and a newline. */
async function writeCsv(ids: readonly string[], name = 'decisions.csv'): Promise<string> {
  const rows = ids.map((id, i) => [
    id,
    STATUSES[i % STATUSES.length] ?? 'open',
    `row ${i + 1}: "quoted", with commas,\nand a second line`,
  ]);
  await writeFile(path.join(dir, name), stringify([['finding_id', 'finding_status', 'notes'], ...rows]));
  return name;
}

async function reviewEventCounts(sim: RunningSimulator, ids: readonly string[]): Promise<number[]> {
  const counts: number[] = [];
  for (const id of ids) counts.push((await readFinding(sim, id)).review_events.length);
  return counts;
}

describe('triage apply', () => {
  it('refuses an invalid file before sending anything and lists every bad row', async () => {
    const { sim, ids } = await simulator();
    const csv =
      'finding_id,finding_status,severity\n' +
      `${ids[0]},open,\n` +
      `${ids[1]},closed,\n` +
      `nope,open,\n` +
      `${ids[2]},,extreme\n`;
    await writeFile(path.join(dir, 'd.csv'), csv);
    const before = sim.stats().requests;
    const result = await run(sim, dir, ['triage', 'apply', 'd.csv']);
    expect(result.code).toBe(2);
    expect(result.err).toContain('d.csv has 3 invalid row(s); nothing was sent');
    expect(result.err).toContain('row 2 (line 3): finding_status "closed" is not allowed');
    expect(result.err).toContain('row 3 (line 4): finding_id "nope" is not a UUID');
    expect(result.err).toContain('row 4 (line 5): severity "extreme" is not allowed');
    expect(result.err).not.toContain('row 1 ');
    expect(sim.stats().requests).toBe(before);
    await expect(stat(journalFile(dir))).rejects.toThrow();
  });

  it('--dry-run shows the planned changes and sends nothing', async () => {
    const { sim, ids } = await simulator();
    const file = await writeCsv(ids.slice(0, 3));
    const before = sim.stats().requests;
    const result = await run(sim, dir, ['triage', 'apply', file, '--dry-run']);
    expect(result.code).toBe(0);
    expect(result.out).toContain('Dry run: nothing was sent. 3 row(s) would be sent; 0 already applied');
    for (const [i, id] of ids.slice(0, 3).entries()) {
      expect(result.out).toMatch(new RegExp(`\\n${i + 1}\\s+${id}\\s+${STATUSES[i]}`, 'u'));
    }
    expect(result.out).toContain('"row 1: \\"quoted\\", with commas,\\nand a second line"');
    expect(sim.stats().requests).toBe(before);
    await expect(stat(journalFile(dir))).rejects.toThrow();
  });

  it('applies every row exactly once under 20% injected 429s, notes parsed right', async () => {
    const { sim, ids } = await simulator({ faults: '429=0.2,retry_after=0' });
    const file = await writeCsv(ids);
    const result = await run(sim, dir, ['triage', 'apply', file, '--concurrency', '4']);
    expect(result.code).toBe(0);
    expect(result.out).toContain(`Applied ${ROWS} of ${ROWS} row(s) sent in this run`);
    expect(sim.stats().faults['429']).toBeGreaterThan(0);
    expect(await reviewEventCounts(sim, ids)).toEqual(ids.map(() => 1));
    const detail = await readFinding(sim, ids[0] ?? '');
    expect(detail.notes).toBe('row 1: "quoted", with commas,\nand a second line');
    const lines = await readJournalLines(journalFile(dir));
    expect(lines).toHaveLength(ROWS);
    expect(lines.every((l) => l.outcome === 'applied' && l.http_status === 200)).toBe(true);
    expect(lines.map((l) => l.source).sort()).toEqual(ids.map((_, i) => `apply:${file}#${i + 1}`).sort());

    // Running the same file again sends nothing: the journal knows every row.
    const before = sim.stats().requests;
    const again = await run(sim, dir, ['triage', 'apply', file]);
    expect(again.code).toBe(0);
    expect(again.out).toContain(
      `Applied 0 of 0 row(s) sent in this run; ${ROWS} already applied earlier (skipped)`,
    );
    expect(sim.stats().requests).toBe(before);
  });

  it('lists, journals and never re-sends rows whose PATCH got a 502', async () => {
    const { sim, ids } = await simulator({ faults: '502=0.3' });
    const file = await writeCsv(ids);
    const result = await run(sim, dir, ['triage', 'apply', file]);
    const lines = await readJournalLines(journalFile(dir));
    const unknown = lines.filter((l) => l.outcome === 'outcome_unknown');
    const applied = lines.filter((l) => l.outcome === 'applied');
    expect(unknown.length).toBeGreaterThan(0);
    expect(applied.length).toBeGreaterThan(0);
    expect(unknown.length + applied.length).toBe(ROWS);
    expect(unknown.every((l) => l.http_status === 502 && l.finding === null)).toBe(true);
    expect(result.code).toBe(3);
    expect(result.out).toContain(
      `Outcome unknown (${unknown.length}). Their PATCH may or may not have been applied`,
    );
    for (const line of unknown) {
      const row = ids.indexOf(line.finding_id) + 1;
      expect(result.out).toMatch(new RegExp(`\\n${row}\\s+${line.finding_id}\\s+502`, 'u'));
      expect(result.err).toContain(`row ${row} (${line.finding_id}): OUTCOME UNKNOWN (not re-sent)`);
    }
    expect(result.err).toMatch(/with unknown outcome/u);

    // Each PATCH was sent once: the simulator answers 502 before acting, so those findings have no
    // review event and the applied ones have exactly one.
    const counts = await reviewEventCounts(sim, ids);
    expect(counts).toEqual(ids.map((id) => (unknown.some((l) => l.finding_id === id) ? 0 : 1)));

    // Re-running holds the unknown rows back and sends nothing; the file is not done (exit 3).
    const before = sim.stats().requests;
    const again = await run(sim, dir, ['triage', 'apply', file]);
    expect(sim.stats().requests).toBe(before);
    expect(again.code).toBe(3);
    expect(again.out).toContain(`Unknown outcome in an earlier run, held back (${unknown.length})`);
    expect(await readJournalLines(journalFile(dir))).toHaveLength(ROWS);

    // Only the operator's explicit --resend-unknown sends them again, once each.
    const resend = await run(sim, dir, ['triage', 'apply', file, '--resend-unknown']);
    expect(sim.stats().requests - before).toBe(unknown.length);
    expect(resend.out).toContain(`${ROWS - unknown.length} already applied earlier (skipped)`);
  });

  it('after an interruption, re-running applies only the remainder', async () => {
    const { sim, ids } = await simulator();
    const file = await writeCsv(ids);
    const decisions = await readDecisionsFile(file, dir);
    const controller = new AbortController();
    const client = createApiClient({ baseUrl: sim.url, token: sim.token });
    let report;
    try {
      report = await applyDecisions({
        client,
        target: { org: sim.org, workspace: sim.workspace },
        decisions,
        journalPath: 'triage/journal.jsonl',
        cwd: dir,
        concurrency: 1,
        signal: controller.signal,
        onOutcome: () => {
          if (!controller.signal.aborted) controller.abort();
        },
      });
    } finally {
      await client.close();
    }
    expect(report.applied.map((o) => o.row.row)).toEqual([1]);
    expect(report.notAttempted).toHaveLength(ROWS - 1);
    expect(report.stoppedBecause).toBe('interrupted');
    expect(report.remainingFile).toBe('decisions.remaining.csv');
    const remaining = await readDecisionsFile('decisions.remaining.csv', dir);
    expect(remaining.rows.map((r) => r.findingId)).toEqual(ids.slice(1));
    expect(remaining.rows[0]?.request.notes).toBe('row 2: "quoted", with commas,\nand a second line');

    const before = sim.stats().requests;
    const result = await run(sim, dir, ['triage', 'apply', file]);
    expect(result.code).toBe(0);
    expect(result.out).toContain(
      `Applied ${ROWS - 1} of ${ROWS - 1} row(s) sent in this run; 1 already applied earlier`,
    );
    expect(sim.stats().requests - before).toBe(ROWS - 1);
    expect(await reviewEventCounts(sim, ids)).toEqual(ids.map(() => 1));
    expect(await readJournalLines(journalFile(dir))).toHaveLength(ROWS);
  });

  it('after an interruption, a row without an answer in the grace period is outcome_unknown, never re-sent', async () => {
    // Every answer takes 1.5 s; the interruption comes once two PATCHes are in flight and waits 50 ms.
    const { sim, ids } = await simulator({ faults: 'latency=1500ms' });
    const file = await writeCsv(ids);
    const decisions = await readDecisionsFile(file, dir);
    const controller = new AbortController();
    const cancel = new AbortController();
    const client = createApiClient({ baseUrl: sim.url, token: sim.token, signal: cancel.signal });
    const inFlight = (): number => Object.values(sim.stats().patches).reduce((a, b) => a + b, 0);
    const watcher = (async () => {
      for (let i = 0; i < 2000 && inFlight() < 2; i++) await new Promise((r) => setTimeout(r, 5));
      controller.abort();
    })();
    let report;
    try {
      report = await applyDecisions({
        client,
        target: { org: sim.org, workspace: sim.workspace },
        decisions,
        journalPath: 'triage/journal.jsonl',
        cwd: dir,
        concurrency: 2,
        signal: controller.signal,
        interruptGraceMs: 50,
      });
    } finally {
      await watcher;
      cancel.abort();
      await client.close();
    }
    expect(report.outcomeUnknown.map((o) => o.row.row)).toEqual([1, 2]);
    expect(report.outcomeUnknown[0]?.entry.error).toContain('no answer within 0.05 s of the interruption');
    expect(report.notAttempted).toHaveLength(ROWS - 2);
    // Unknown rows are not in the remaining file: re-sending them is the operator's decision.
    const remaining = await readDecisionsFile('decisions.remaining.csv', dir);
    expect(remaining.rows.map((r) => r.findingId)).toEqual(ids.slice(2));
    const journal = await readJournalLines(journalFile(dir), { withSending: true });
    expect(journal.map((l) => l.outcome)).toEqual([
      'sending',
      'sending',
      'outcome_unknown',
      'outcome_unknown',
    ]);

    const result = await run(sim, dir, ['triage', 'apply', file, '--concurrency', '4']);
    // The rest is applied, but the two held-back rows leave the file undone: partial (exit 3).
    expect(result.code).toBe(3);
    expect(result.out).toContain('Unknown outcome in an earlier run, held back (2)');
    expect(result.err).toContain('2 held back with an unknown earlier outcome');
    const patches = sim.stats().patches;
    expect(ids.map((id) => patches[id])).toEqual(ids.map(() => 1));
  });

  // What main() aborts with on each stop signal; both stop the same way, only the exit code differs.
  it.each([
    { signal: 'SIGINT', exitCode: EXIT.interrupted },
    { signal: 'SIGTERM', exitCode: EXIT.terminated },
  ] as const)(
    '$signal during a CLI run stops new rows, exits $exitCode and leaves a remaining file',
    async ({ signal, exitCode }) => {
      const { sim, ids } = await simulator();
      const file = await writeCsv(ids);
      const controller = new AbortController();
      const stderr: string[] = [];
      const result = await run(sim, dir, ['triage', 'apply', file, '--concurrency', '1'], {
        signal: controller.signal,
        // The first progress line (after 2 of 12 rows) plays the part of the operator's signal.
        stderr: (text) => {
          stderr.push(text);
          if (text.startsWith('triage apply:')) controller.abort(new InterruptedError(signal));
        },
      });
      expect(result.code).toBe(exitCode);
      expect(stderr.join('')).toContain('Interrupted: sending no new rows');
      expect(stderr.join('')).toContain(`Interrupted by ${signal}: 2 row(s) applied`);
      expect(stderr.join('')).toContain('Run the same command again to apply the rest');
      const applied = (await readJournalLines(journalFile(dir))).length;
      expect(applied).toBe(2);
      const remaining = await readDecisionsFile('decisions.remaining.csv', dir);
      expect(remaining.rows.map((r) => r.findingId)).toEqual(ids.slice(applied));
    },
  );

  it('skips rows a journal already holds, but sends a row whose fields changed', async () => {
    const { sim, ids } = await simulator();
    const first = await writeCsv(ids.slice(0, 4));
    expect((await run(sim, dir, ['triage', 'apply', first])).code).toBe(0);
    // Same findings, one row edited: only that one is a new change.
    const edited = JSON.stringify([
      ...ids.slice(0, 3).map((id, i) => ({
        finding_id: id,
        finding_status: STATUSES[i],
        notes: `row ${i + 1}: "quoted", with commas,\nand a second line`,
      })),
      { finding_id: ids[3], finding_status: 'open' },
    ]);
    await writeFile(path.join(dir, 'edited.json'), edited);
    const before = sim.stats().requests;
    const result = await run(sim, dir, ['triage', 'apply', 'edited.json']);
    expect(result.code).toBe(0);
    expect(result.out).toContain(
      'Applied 1 of 1 row(s) sent in this run; 3 already applied earlier (skipped)',
    );
    expect(sim.stats().requests - before).toBe(1);
    expect((await readFinding(sim, ids[3] ?? '')).finding_status).toBe('open');
  });

  it('partial failure: failed rows go to a remaining file, exit 3', async () => {
    const { sim, ids } = await simulator();
    const missing = '00000000-0000-4000-8000-0000000000ff';
    const rows = [ids[0] ?? '', missing, ids[1] ?? ''];
    const file = await writeCsv(rows);
    const result = await run(sim, dir, ['triage', 'apply', file]);
    expect(result.code).toBe(3);
    expect(result.out).toContain('Failed (1); nothing changed for these, safe to send again:');
    expect(result.out).toMatch(new RegExp(`\\n2\\s+${missing}\\s+404`, 'u'));
    expect(result.err).toContain(
      '2 row(s) applied, 1 failed, 0 with unknown outcome, 0 not sent; rows left to do are in decisions.remaining.csv',
    );
    const remaining = await readFile(path.join(dir, 'decisions.remaining.csv'), 'utf8');
    expect(remaining.split('\n')[0]).toBe('finding_id,finding_status,finding_type,severity,notes');
    expect(remaining).toContain(missing);
    expect(remaining).not.toContain(ids[0] ?? 'x');
  });

  it('stops sending when the token may not write (403), leaving the rest for later', async () => {
    const { sim, ids } = await simulator({ readOnlyToken: 'read-only-token' });
    const file = await writeCsv(ids);
    const result = await run(sim, dir, ['triage', 'apply', file, '--concurrency', '1'], {
      token: 'read-only-token',
    });
    expect(result.code).toBe(3);
    expect(result.out).toContain('The run stopped early');
    expect(result.out).toContain(`${ROWS - 1} row(s) not sent`);
    const remaining = await readDecisionsFile('decisions.remaining.csv', dir);
    expect(remaining.rows).toHaveLength(ROWS);
    expect(await readJournalLines(journalFile(dir))).toMatchObject([{ outcome: 'failed', http_status: 403 }]);
  });
});
