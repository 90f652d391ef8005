import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DecisionsFileError, parseDecisions, readDecisionsFile } from '../../src/triage/decisions-file.js';
import { remainingRowsPath, writeRemainingRows } from '../../src/triage/remaining-rows.js';

const A = '0a1b2c3d-0000-4000-8000-00000000000a';
const B = '0a1b2c3d-0000-4000-8000-00000000000b';
const C = '0a1b2c3d-0000-4000-8000-00000000000c';

function problemsOf(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(DecisionsFileError);
    return (error as DecisionsFileError).message;
  }
  throw new Error('expected a DecisionsFileError');
}

describe('CSV decisions', () => {
  it('reads quotes, commas and newlines inside notes with a real CSV parser', () => {
    const csv =
      'finding_id,finding_status,notes\n' +
      `${A},false_positive,"benign, quoted ""verbatim"" in docs\nsecond line"\n` +
      `\n` +
      `${B},,"only notes"\r\n` +
      `${C},accepted_risk,\n`;
    const file = parseDecisions(csv, 'csv', 'decisions.csv');
    expect(file.rows).toEqual([
      {
        row: 1,
        line: 2,
        findingId: A,
        request: {
          finding_status: 'false_positive',
          notes: 'benign, quoted "verbatim" in docs\nsecond line',
        },
      },
      { row: 2, line: 5, findingId: B, request: { notes: 'only notes' } },
      { row: 3, line: 6, findingId: C, request: { finding_status: 'accepted_risk' } },
    ]);
  });

  it('lists every bad row with its number and line, and accepts no part of the file', () => {
    const csv =
      'finding_id,finding_status,finding_type,severity,notes\n' +
      `${A},fixed,,,\n` +
      `not-a-uuid,open,,,\n` +
      `${B},,,,\n` +
      `${C},open,jailbreak,urgent,"multi\nline"\n` +
      `${C},open,,,\n` +
      `${A.toUpperCase()},open\n`;
    const message = problemsOf(() => parseDecisions(csv, 'csv', 'd.csv'));
    expect(message).toContain('d.csv has 6 invalid row(s); nothing was sent');
    expect(message).toContain(
      'row 1 (line 2): finding_status "fixed" is not allowed; use one of: open, false_positive, accepted_risk, remediated, incorrect_scoring',
    );
    expect(message).toContain('row 2 (line 3): finding_id "not-a-uuid" is not a UUID');
    expect(message).toContain('row 3 (line 4): nothing to change');
    expect(message).toContain(
      'row 4 (line 5): severity "urgent" is not allowed; use one of: critical, high, medium, low, info',
    );
    expect(message).toContain(`row 5 (line 7): finding ${C} already appears on row 4`);
    expect(message).toContain('row 6 (line 8): has 2 cells, the header has 5');
  });

  it('refuses unknown and missing columns', () => {
    expect(problemsOf(() => parseDecisions(`id,status\n${A},open\n`, 'csv', 'd.csv'))).toMatch(
      /unknown column\(s\) "id", "status"[\s\S]*has no finding_id column/u,
    );
  });

  it('refuses an empty file and broken quoting', () => {
    expect(problemsOf(() => parseDecisions('', 'csv', 'd.csv'))).toContain('holds no decision rows');
    expect(problemsOf(() => parseDecisions(`finding_id,notes\n${A},"open`, 'csv', 'd.csv'))).toContain(
      'is not valid CSV',
    );
  });
});

describe('JSON decisions', () => {
  it('reads an array of objects and keeps an empty notes string as a change', () => {
    const json = JSON.stringify([
      { finding_id: A, severity: 'low', notes: '' },
      { finding_id: B, finding_type: 'refusal' },
    ]);
    expect(parseDecisions(json, 'json', 'd.json').rows).toEqual([
      { row: 1, findingId: A, request: { severity: 'low', notes: '' } },
      { row: 2, findingId: B, request: { finding_type: 'refusal' } },
    ]);
  });

  it('reports non-objects, unknown keys, nulls and non-strings per row', () => {
    const json = JSON.stringify([
      'x',
      { finding_id: A, status: 'open' },
      { finding_id: B, finding_status: null },
      { finding_id: C, severity: 3 },
    ]);
    const message = problemsOf(() => parseDecisions(json, 'json', 'd.json'));
    expect(message).toContain('row 1: is not an object');
    expect(message).toContain('row 2: unknown key "status"');
    expect(message).toContain(
      'row 3: finding_status must be a string (omit the key to leave it unchanged), got null',
    );
    expect(message).toContain('row 4: severity must be a string');
  });

  it('refuses a document that is not an array', () => {
    expect(problemsOf(() => parseDecisions('{"finding_id":1}', 'json', 'd.json'))).toContain(
      'must hold a JSON array',
    );
  });
});

describe('files', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'airt-decisions-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('picks the format by extension and refuses others', async () => {
    await writeFile(path.join(dir, 'd.txt'), 'x');
    await expect(readDecisionsFile('d.txt', dir)).rejects.toThrow('must end in .csv or .json');
  });

  it('writes the remaining rows in the input format so they parse back to the same changes', async () => {
    const csv = `finding_id,notes,severity\n${A},"a, ""b""\nc",high\n${B},,low\n`;
    await writeFile(path.join(dir, 'd.csv'), csv);
    const decisions = await readDecisionsFile('d.csv', dir);
    const shown = await writeRemainingRows(decisions, decisions.rows, dir);
    expect(shown).toBe('d.remaining.csv');
    expect(remainingRowsPath(shown)).toBe('d.remaining.csv');
    const again = parseDecisions(await readFile(path.join(dir, shown), 'utf8'), 'csv', shown);
    expect(again.rows.map((r) => [r.findingId, r.request])).toEqual(
      decisions.rows.map((r) => [r.findingId, r.request]),
    );
  });
});
