/**
 * Query output streams: a 1,000,000-row result is written in every format by a CLI process whose
 * heap is capped at 128 MB (materialized, the rows alone need several times that). The output is
 * read back line by line here, never held whole, and checked: every row present, in order, with the
 * format's header and footer.
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureSchema } from '../../src/warehouse/ddl.js';
import { openWarehouse } from '../../src/warehouse/db.js';
import { makeTempDir, removeTempDirs } from '../helpers/temp-dirs.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const MAIN = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));
const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
const ROWS = 1_000_000;
const SQL = `SELECT range AS n, 'row ' || range AS label FROM range(${ROWS})`;

let db: string;

beforeAll(async () => {
  db = path.join(await makeTempDir('airt-million-'), 'airt.duckdb');
  const warehouse = await openWarehouse(db);
  try {
    await ensureSchema(warehouse.conn);
  } finally {
    warehouse.close();
  }
});

afterAll(async () => {
  await removeTempDirs();
});

interface Streamed {
  code: number | null;
  lines: number;
  first: string[];
  last: string[];
  stderr: string;
}

/** Runs `query` with a capped heap and reads its stdout line by line, keeping only the ends. */
function queryWithCappedHeap(format: string): Promise<Streamed> {
  const child = spawn(
    process.execPath,
    ['--max-old-space-size=128', '--import', TSX, MAIN, 'query', SQL, '--db', db, '--format', format],
    { cwd: ROOT, env: { PATH: process.env.PATH, HOME: process.env.HOME, TZ: 'UTC' } },
  );
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const first: string[] = [];
  const last: string[] = [];
  let lines = 0;
  createInterface({ input: child.stdout }).on('line', (line) => {
    lines += 1;
    if (first.length < 4) first.push(line);
    last.push(line);
    if (last.length > 3) last.shift();
  });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, lines, first, last, stderr }));
  });
}

describe('query output of 1,000,000 rows under a 128 MB heap', () => {
  it('table: header, rule, every row, and the row count', async () => {
    const run = await queryWithCappedHeap('table');
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.lines).toBe(ROWS + 3);
    // Widths come from the first batches (DuckDB's 2,048 rows: up to "2047"); a wider later cell
    // widens its own line, nothing is cut.
    expect(run.first).toEqual(['n     label', '----  --------', '0     row 0', '1     row 1']);
    expect(run.last).toEqual(['999998  row 999998', '999999  row 999999', '(1000000 rows)']);
  });

  it('csv, ndjson, markdown and json: every row, streamed (run side by side)', async () => {
    const expected = [
      ['csv', ['n,label', '0,row 0'], ['999998,row 999998', '999999,row 999999'], ROWS + 1],
      ['ndjson', ['{"n":0,"label":"row 0"}'], ['{"n":999999,"label":"row 999999"}'], ROWS],
      [
        'markdown',
        ['| n | label |', '| --- | --- |', '| 0 | row 0 |'],
        ['| 999999 | row 999999 |'],
        ROWS + 2,
      ],
      ['json', ['[', '  {', '    "n": 0,'], ['    "label": "row 999999"', '  }', ']'], ROWS * 4 + 2],
    ] as const;
    const runs = await Promise.all(expected.map(([format]) => queryWithCappedHeap(format)));
    runs.forEach((run, i) => {
      const [format, head, tail, lines] = expected[i]!;
      expect({ format, stderr: run.stderr, code: run.code, lines: run.lines }).toEqual({
        format,
        stderr: '',
        code: 0,
        lines,
      });
      expect(run.first.slice(0, head.length)).toEqual(head);
      expect(run.last.slice(-tail.length)).toEqual(tail);
    });
  });
});
