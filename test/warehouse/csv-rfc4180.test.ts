/**
 * `query --format csv` read back by a real RFC 4180 consumer (Python's csv module): hostile cells
 * (leading CR, LF, quotes, commas, formulas, tab, U+202E) and the fixture's hostile trials give the
 * same row count as the JSON output, the same values, and no cell a spreadsheet would run as a formula.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { csvText } from '../../src/csv-text.js';
import { loadSnapshots } from '../../src/warehouse/loader.js';
import { FIXTURES, tempDir } from './helpers.js';
import { runMain } from '../helpers/run-main.js';

const HOSTILE_SQL = `
SELECT n, -n AS negative, -2.5 AS fraction, value FROM (VALUES
  (1, chr(13) || '=1+1'), (2, chr(13)), (3, 'a' || chr(10) || '=2+2'), (4, 'say "hi", ok'),
  (5, 'x,y'), (6, '=1+1'), (7, '+1'), (8, '-1+1'), (9, '@SUM(A1)'), (10, chr(9) || '=1'),
  (11, chr(8238) || 'gnp.exe'), (12, chr(13) || chr(10) || '=3'), (13, '-5'),
  (14, chr(13) || '+x' || chr(13) || '@y'), (15, '"'), (16, '')
) AS t(n, value)
UNION ALL
SELECT 100 + row_number() OVER (ORDER BY assessment_id, trial_ordinal), -1, -2.5, candidate FROM trials
UNION ALL
SELECT 1000 + row_number() OVER (ORDER BY assessment_id, trial_ordinal), -1, -2.5, response FROM trials
ORDER BY n`;

// Reads both files, compares row counts and values, and rejects any live formula cell.
const PYTHON_CHECK = String.raw`
import csv, json, re, sys
with open(sys.argv[1], newline='', encoding='utf-8') as f:
    rows = list(csv.reader(f))
data = json.load(open(sys.argv[2], encoding='utf-8'))
header, body = rows[0], rows[1:]
assert len(body) == len(data), f"csv has {len(body)} rows, json {len(data)}"
number = re.compile(r'^-?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$')
def text(v):
    if v is None: return ''
    if isinstance(v, float) and v.is_integer(): return str(int(v)) if abs(v) < 1e15 else repr(v)
    return str(v)
for record, obj in zip(body, data):
    assert len(record) == len(header), record
    for name, cell in zip(header, record):
        value = text(obj[name])
        if cell[:1] in ('=', '+', '-', '@', '\t', '\r'):
            assert number.match(cell), f"live formula cell {cell!r}"
        expected = value if number.match(value) or value[:1] not in ('=', '+', '-', '@', '\t', '\r') else "'" + value
        assert cell == expected, (cell, expected)
print(len(body))
`;

describe('query --format csv read back by Python csv', () => {
  let work: Awaited<ReturnType<typeof tempDir>>;
  let db: string;
  const cli = (...argv: string[]) => runMain(work.dir, argv);

  beforeAll(async () => {
    work = await tempDir();
    db = path.join(work.dir, 'airt.duckdb');
    await loadSnapshots(db, [FIXTURES.first]);
  });
  afterAll(() => work.cleanup());

  it('has the JSON row count, the same values, and no live formula cell', async () => {
    const csvFile = path.join(work.dir, 'out.csv');
    const jsonFile = path.join(work.dir, 'out.json');
    expect((await cli('query', HOSTILE_SQL, '--db', db, '--format', 'csv', '--out', csvFile)).code).toBe(0);
    expect((await cli('query', HOSTILE_SQL, '--db', db, '--format', 'json', '--out', jsonFile)).code).toBe(0);
    const checked = execFileSync('python3', ['-c', PYTHON_CHECK, csvFile, jsonFile], { encoding: 'utf8' });
    expect(Number(checked.trim())).toBeGreaterThan(16);
  });

  it('quotes a lone carriage return, as RFC 4180 requires, also on stdout', async () => {
    const result = await cli(
      'query',
      `SELECT chr(13) || 'x' AS a, 'p' || chr(13) AS b`,
      '--db',
      db,
      '--format',
      'csv',
    );
    expect(result.out).toBe(`a,b\n"'\rx","p\r"\n`);
  });

  it('the shared writer quotes CR, LF, quotes and commas and nothing else (triage remaining rows use it)', () => {
    expect(csvText([['\ra', 'b\nc', 'x"y', 'p,q', 'plain', '=1']])).toBe(
      '"\ra","b\nc","x""y","p,q",plain,=1\n',
    );
  });
});
