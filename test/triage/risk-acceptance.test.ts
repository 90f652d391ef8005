/**
 * Dated risk acceptances, checked locally before anything is sent: --until and --reason come
 * together and only with accepted_risk, the date is a real YYYY-MM-DD day; decisions files carry the
 * same columns and keep them in the remaining-rows file; the journal line records them while the
 * request holds only what the API takes.
 */
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { recordingIO } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { DecisionsFileError, parseDecisions } from '../../src/triage/decisions-file.js';
import { formatJournalLine, JOURNAL_FORMAT } from '../../src/triage/journal.js';
import { writeRemainingRows } from '../../src/triage/remaining-rows.js';
import { acceptanceExpiresAt, isCalendarDate } from '../../src/triage/risk-acceptance.js';
import { validateTriageChange } from '../../src/triage/triage-request.js';
import { makeTempDir } from '../helpers/temp-dirs.js';

const A = '0a1b2c3d-0000-4000-8000-00000000000a';
const B = '0a1b2c3d-0000-4000-8000-00000000000b';

describe('risk acceptance validation', () => {
  it('accepts a dated acceptance with accepted_risk and keeps it out of the request', () => {
    const result = validateTriageChange(
      A,
      {
        finding_status: 'accepted_risk',
        accepted_until: '2026-12-31',
        acceptance_reason: ' compensating control ',
      },
      { owner: 'alice' },
    );
    expect(result).toEqual({
      ok: true,
      change: {
        findingId: A,
        request: { finding_status: 'accepted_risk' },
        acceptance: { owner: 'alice', reason: 'compensating control', until: '2026-12-31' },
      },
    });
  });

  it.each([
    [
      { finding_status: 'open', accepted_until: '2026-12-31', acceptance_reason: 'x' },
      'applies only with finding_status accepted_risk',
    ],
    [{ finding_status: 'accepted_risk', accepted_until: '2026-12-31' }, 'say why the risk is accepted'],
    [{ finding_status: 'accepted_risk', acceptance_reason: 'x' }, 'needs the last day it holds'],
    [
      { finding_status: 'accepted_risk', accepted_until: '2026-02-30', acceptance_reason: 'x' },
      'is not a date written YYYY-MM-DD',
    ],
    [
      { finding_status: 'accepted_risk', accepted_until: '31/12/2026', acceptance_reason: 'x' },
      'is not a date written YYYY-MM-DD',
    ],
  ])('refuses %j', (input, message) => {
    const result = validateTriageChange(A, input, { owner: 'alice' });
    expect(result.ok).toBe(false);
    expect(JSON.stringify(result)).toContain(message);
  });

  it('an acceptance holds through its last day (UTC) and ends at midnight after it', () => {
    expect(acceptanceExpiresAt('2026-03-02')).toBe('2026-03-03T00:00:00.000Z');
    expect(acceptanceExpiresAt('2026-12-31')).toBe('2027-01-01T00:00:00.000Z');
    expect(isCalendarDate('2028-02-29')).toBe(true);
    expect(isCalendarDate('2027-02-29')).toBe(false);
  });

  it('the journal line records owner, reason and date; the request stays what the API allows', () => {
    const line = JSON.parse(
      formatJournalLine({
        journal: JOURNAL_FORMAT,
        time: '2026-03-01T00:00:00.000Z',
        org: 'acme',
        workspace: 'main',
        finding_id: A,
        request: { finding_status: 'accepted_risk' },
        outcome: 'applied',
        http_status: 200,
        error: null,
        finding: null,
        source: 'cli',
        acceptance: { owner: 'alice', reason: 'why', until: '2026-12-31' },
      }),
    ) as Record<string, unknown>;
    expect(line.request).toEqual({ finding_status: 'accepted_risk' });
    expect(line.acceptance).toEqual({ owner: 'alice', reason: 'why', until: '2026-12-31' });
  });

  it('triage --until without accepted_risk is a usage error and sends nothing', async () => {
    const io = recordingIO({
      env: { AIRT_BASE_URL: 'http://127.0.0.1:9', AIRT_ORG: 'a', AIRT_WORKSPACE: 'b', AIRT_TOKEN: 't' },
    });
    const dir = await makeTempDir('airt-accept-cli-');
    const code = await main(
      [
        'triage',
        A,
        '--status',
        'open',
        '--until',
        '2026-12-31',
        '--reason',
        'x',
        '--journal',
        `${dir}/j.jsonl`,
      ],
      io,
    );
    expect(code).toBe(2);
    expect(io.err.join('')).toContain('--until: applies only with finding_status accepted_risk');
  });
});

describe('acceptances in decisions files', () => {
  it('reads accepted_until, acceptance_reason, accepted_by and writes them back to the remaining file', async () => {
    const csv =
      'finding_id,finding_status,accepted_until,acceptance_reason,accepted_by\n' +
      `${A},accepted_risk,2026-12-31,"vendor fix due, RISK-7",ciso@example.com\n` +
      `${B},false_positive,,,\n`;
    const file = parseDecisions(csv, 'csv', 'accept.csv', 'default-owner');
    expect(file.rows[0]?.acceptance).toEqual({
      owner: 'ciso@example.com',
      reason: 'vendor fix due, RISK-7',
      until: '2026-12-31',
    });
    expect(file.rows[1]?.acceptance).toBeUndefined();
    const dir = await makeTempDir('airt-accept-rows-');
    const shown = await writeRemainingRows(file, file.rows, dir);
    const again = parseDecisions(await readFile(`${dir}/${shown}`, 'utf8'), 'csv', shown, 'other');
    expect(again.rows.map((r) => r.acceptance)).toEqual(file.rows.map((r) => r.acceptance));

    const json = JSON.stringify([
      {
        finding_id: A,
        finding_status: 'accepted_risk',
        accepted_until: '2026-12-31',
        acceptance_reason: 'r',
      },
    ]);
    expect(parseDecisions(json, 'json', 'a.json', 'default-owner').rows[0]?.acceptance?.owner).toBe(
      'default-owner',
    );
  });

  it('a row with a date but another status is refused with the row number', () => {
    const csv = `finding_id,finding_status,accepted_until,acceptance_reason\n${A},remediated,2026-12-31,r\n`;
    expect(() => parseDecisions(csv, 'csv', 'bad.csv')).toThrow(DecisionsFileError);
    expect(() => parseDecisions(csv, 'csv', 'bad.csv')).toThrow(
      /row 1 \(line 2\): accepted_until applies only with finding_status accepted_risk/u,
    );
  });
});
