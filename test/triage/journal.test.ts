import { spawnSync } from 'node:child_process';
import { appendFile, mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  changeKey,
  formatJournalLine,
  indexJournal,
  lastWordOn,
  lockJournal,
  NO_OUTCOME_RECORDED,
  openJournal,
  readJournal,
  type JournalEntry,
} from '../../src/triage/journal.js';

const ID = '0a1b2c3d-0000-4000-8000-00000000000a';

function entry(overrides: Partial<JournalEntry> = {}): JournalEntry {
  return {
    journal: 'airt-triage/1',
    time: '2026-01-02T03:04:05.000Z',
    org: 'acme',
    workspace: 'main',
    finding_id: ID,
    request: { notes: 'n', finding_status: 'false_positive' },
    outcome: 'applied',
    http_status: 200,
    error: null,
    finding: { id: ID },
    source: 'cli',
    ...overrides,
  };
}

describe('journal lines', () => {
  it('have the contract key order and a canonical request', () => {
    expect(formatJournalLine(entry())).toBe(
      `{"journal":"airt-triage/1","time":"2026-01-02T03:04:05.000Z","org":"acme","workspace":"main","finding_id":"${ID}",` +
        `"request":{"finding_status":"false_positive","notes":"n"},"outcome":"applied","http_status":200,"error":null,` +
        `"finding":{"id":"${ID}"},"source":"cli"}\n`,
    );
  });

  it('identify a change by org, workspace, finding and the exact fields', () => {
    const key = changeKey('acme', 'main', ID.toUpperCase(), { notes: 'n', finding_status: 'false_positive' });
    expect(key).toBe(changeKey('acme', 'main', ID, { finding_status: 'false_positive', notes: 'n' }));
    expect(key).not.toBe(changeKey('acme', 'main', ID, { finding_status: 'false_positive', notes: 'n ' }));
    expect(key).not.toBe(changeKey('acme', 'other', ID, { finding_status: 'false_positive', notes: 'n' }));
  });

  it('index keeps applied over outcome_unknown over failed, whatever the order', () => {
    const known = indexJournal([
      entry({ outcome: 'outcome_unknown' }),
      entry({ outcome: 'applied', time: 'later' }),
      entry({ outcome: 'failed' }),
    ]);
    expect([...known.values()].map((k) => [k.outcome, k.entry.time])).toEqual([['applied', 'later']]);
  });

  it('index reads a "sending" line without an outcome after it as outcome_unknown', () => {
    const sending = entry({ outcome: 'sending', http_status: null, finding: null });
    const other = { request: { severity: 'low' as const } };
    const known = indexJournal([
      sending,
      entry({ ...other, outcome: 'sending', http_status: null, finding: null }),
      entry({ ...other, outcome: 'failed', http_status: 404, finding: null }),
    ]);
    const outcomes = [...known.values()].map((k) => [k.outcome, k.entry.error]).sort();
    expect(outcomes).toEqual([
      ['failed', null],
      ['outcome_unknown', NO_OUTCOME_RECORDED],
    ]);
    // Paired by count: the same change sent twice with one outcome leaves one unknown; an applied
    // outcome still wins, and journals from before "sending" lines read as they did.
    expect(
      indexJournal([sending, sending, entry({ outcome: 'failed' })])
        .values()
        .next().value?.outcome,
    ).toBe('outcome_unknown');
    expect(indexJournal([sending, sending, entry()]).values().next().value?.outcome).toBe('applied');
    expect(
      indexJournal([entry({ outcome: 'failed' })])
        .values()
        .next().value?.outcome,
    ).toBe('failed');
  });
});

describe("the journal's last word on a finding (single triage)", () => {
  const sending = (overrides: Partial<JournalEntry> = {}): JournalEntry =>
    entry({ outcome: 'sending', http_status: null, finding: null, ...overrides });
  const word = (entries: JournalEntry[]) => {
    const last = lastWordOn(entries, 'acme', 'main', ID.toUpperCase());
    return last && [last.outcome, last.entry.request.finding_status, last.entry.error];
  };
  const remediated = { request: { finding_status: 'remediated' as const } };

  it('reads an unanswered "sending" line as outcome_unknown, where it stands', () => {
    // A killed run: its "sending" line is the last word, even after an applied change before it.
    expect(word([entry(), sending(remediated)])).toEqual([
      'outcome_unknown',
      'remediated',
      NO_OUTCOME_RECORDED,
    ]);
    // Answered, it is the answer; a later change of the finding is the last word.
    expect(word([sending(), entry({ outcome: 'outcome_unknown', error: 'x' })])).toEqual([
      'outcome_unknown',
      'false_positive',
      'x',
    ]);
    expect(word([sending(), entry(remediated)])).toEqual(['applied', 'remediated', null]);
    expect(word([sending(remediated), entry(), entry(remediated), entry()])).toEqual([
      'applied',
      'false_positive',
      null,
    ]);
  });

  it('judges the last change as triage apply does: a failed re-send keeps the unknown outcome', () => {
    expect(word([sending(), sending(), entry({ outcome: 'failed', error: '429' })])?.[0]).toBe(
      'outcome_unknown',
    );
    expect(word([entry({ outcome: 'outcome_unknown' }), entry({ outcome: 'failed' })])?.[0]).toBe(
      'outcome_unknown',
    );
    expect(word([entry({ outcome: 'outcome_unknown' }), sending(), entry()])?.[0]).toBe('applied');
    // Only since the finding's previous change: an unknown outcome before another change is not it.
    expect(
      word([entry({ outcome: 'outcome_unknown' }), entry(remediated), entry({ outcome: 'failed' })])?.[0],
    ).toBe('failed');
  });

  it('looks only at that finding of that organization and workspace', () => {
    expect(word([])).toBeUndefined();
    expect(
      word([
        sending({ workspace: 'other' }),
        sending({ finding_id: '0a1b2c3d-0000-4000-8000-00000000000b' }),
      ]),
    ).toBe(undefined);
  });
});

describe('journal file', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'airt-journal-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('appends concurrently without interleaving and reads back', async () => {
    const file = path.join(dir, 'triage', 'journal.jsonl');
    const writer = await openJournal(file);
    await Promise.all(
      Array.from({ length: 20 }, (_, i) => writer.append(entry({ source: `apply:d.csv#${i + 1}` }))),
    );
    await writer.close();
    const entries = await readJournal(file);
    expect(entries.map((e) => e.source).sort()).toEqual(
      Array.from({ length: 20 }, (_, i) => `apply:d.csv#${i + 1}`).sort(),
    );
    expect(await readJournal(path.join(dir, 'missing.jsonl'))).toEqual([]);
  });

  it('starts on a fresh line after a torn last line, and refuses to read past the torn line', async () => {
    const file = path.join(dir, 'j.jsonl');
    await writeFile(file, formatJournalLine(entry()) + '{"journal":"airt-tri');
    const writer = await openJournal(file);
    await writer.append(entry({ source: 'after' }));
    await writer.close();
    const lines = (await readFile(file, 'utf8')).split('\n');
    expect(lines[1]).toBe('{"journal":"airt-tri');
    expect(JSON.parse(lines[2] ?? '')).toMatchObject({ source: 'after' });
    await expect(readJournal(file)).rejects.toThrow(
      /Line 2 of the triage journal .* is not a valid airt-triage\/1 entry/u,
    );
  });

  it('refuses a line of another format', async () => {
    const file = path.join(dir, 'j.jsonl');
    await appendFile(file, '{"journal":"other/1"}\n');
    await expect(readJournal(file)).rejects.toThrow('Line 1');
  });

  it('lets one bulk run hold the journal at a time', async () => {
    const file = path.join(dir, 'j.jsonl');
    await writeFile(file, '');
    const release = await lockJournal(file, () => undefined);
    await expect(lockJournal(file, () => undefined)).rejects.toThrow(
      `Another triage apply (process ${process.pid}) is using the journal`,
    );
    await release();
    const again = await lockJournal(file, () => undefined);
    await again();
    await expect(stat(`${file}.lock`)).rejects.toThrow();
    await expect(stat(`${file}.lock.owner`)).rejects.toThrow();
  });

  it('takes over at once a lock whose holder was killed', async () => {
    const file = path.join(dir, 'j.jsonl');
    await writeFile(file, '');
    // A lock as a SIGKILLed apply leaves it: fresh, so proper-lockfile alone would refuse it for 30 s.
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], {
      encoding: 'utf8',
    });
    await mkdir(`${file}.lock`);
    await writeFile(`${file}.lock.owner`, JSON.stringify({ host: hostname(), pid: Number(dead.stdout) }));
    const release = await lockJournal(file, () => undefined);
    expect(JSON.parse(await readFile(`${file}.lock.owner`, 'utf8'))).toMatchObject({ pid: process.pid });
    await release();
  });

  it('takes over a killed apply’s lock even when a takeover killed midway left its marker', async () => {
    const deadPid = (): number =>
      Number(
        spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' })
          .stdout,
      );
    const file = path.join(dir, 'j.jsonl');
    await writeFile(file, '');
    await mkdir(`${file}.lock`);
    await writeFile(`${file}.lock.owner`, JSON.stringify({ host: hostname(), pid: deadPid() }));
    // The marker a takeover holds while it removes the dead holder's lock, left by a process killed then.
    await writeFile(`${file}.lock.takeover`, JSON.stringify({ host: hostname(), pid: deadPid() }));
    const release = await lockJournal(file, () => undefined);
    expect(JSON.parse(await readFile(`${file}.lock.owner`, 'utf8'))).toMatchObject({ pid: process.pid });
    await release();
    await expect(stat(`${file}.lock.takeover`)).rejects.toThrow();
  });
});
