/**
 * `query` output a person sees: adversarial text (an ANSI escape, a bidi override from model output)
 * must not act on the terminal. JSON and ndjson write DEL, C1, bidi and invisible characters as
 * `\uXXXX` (the same values to a parser); CSV on a terminal shows them as `\u{…}`, while CSV into a
 * file or a pipe keeps the data as it is.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { recordingIO } from '../../src/cli/io.js';
import { loadSnapshots } from '../../src/warehouse/loader.js';
import { FIXTURES } from './helpers.js';

let work: string;
let db: string;
// ESC [31m (red), a right-to-left override, DEL and a C1 control (U+009B, CSI).
const SQL = `SELECT chr(27) || '[31mred' || chr(8238) || 'x' || chr(127) || chr(155) AS "t${'\u001b'}itle"`;
const VALUE = '\u001b[31mred\u202ex\u007f\u009b';

beforeAll(async () => {
  work = await mkdtemp(path.join(tmpdir(), 'airt-query-tty-'));
  db = path.join(work, 'w.duckdb');
  await loadSnapshots(db, [FIXTURES.first]);
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

async function query(format: string, stdoutIsTTY: boolean, extra: string[] = []): Promise<string> {
  const io = recordingIO({ cwd: work, stdoutIsTTY });
  const code = await main(['query', SQL, '--db', db, '--format', format, ...extra], io);
  expect(code, io.err.join('')).toBe(0);
  return io.out.join('');
}

// C0 controls but tab and line feed, DEL, C1, and the bidi override: what must not reach a terminal raw.
// eslint-disable-next-line no-control-regex -- matching control characters is this test's point
const RAW_UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202e]/u;

describe('query output and the terminal', () => {
  it.each(['json', 'ndjson'])(
    '%s holds no raw control or bidi character, and parses to the same value',
    async (format) => {
      for (const tty of [true, false]) {
        const text = await query(format, tty);
        expect(text).not.toMatch(RAW_UNSAFE);
        const first =
          format === 'json'
            ? (JSON.parse(text) as Record<string, unknown>[])[0]
            : (JSON.parse(text.split('\n')[0]!) as Record<string, unknown>);
        expect(first).toEqual({ 't\u001bitle': VALUE });
      }
    },
  );

  it('csv on a terminal shows the characters as escapes', async () => {
    const text = await query('csv', true);
    expect(text).not.toMatch(RAW_UNSAFE);
    expect(text).toContain('\\u{001b}[31mred\\u{202e}x\\u{007f}\\u{009b}');
    expect(text).toContain('t\\u{001b}itle');
  });

  it('csv into a pipe or a file keeps the data', async () => {
    expect(await query('csv', false)).toContain(VALUE);
    const out = path.join(work, 'q.csv');
    await query('csv', true, ['--out', out]);
    expect(await readFile(out, 'utf8')).toContain(VALUE);
  });
});
