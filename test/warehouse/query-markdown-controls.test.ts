/**
 * `query --format markdown` shows control characters visibly, as the README promises for Markdown
 * output: a TAB in a cell (or a column name) came out raw, while every other C0/C1 control was shown
 * as `\u{…}` and the table format shows it as `\t`. A raw TAB reads as blank space in a terminal and
 * in the rendered table, so data that held one looked as if it did not. Now it is `\u{0009}`, the
 * same `\u{…}` form as the other controls (the diff's Markdown cells, which share the rule, too).
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { escapeMarkdownCell } from '../../src/text-safety.js';
import { loadSnapshots } from '../../src/warehouse/loader.js';
import { formatResult } from '../../src/warehouse/output-format.js';
import { runMain } from '../helpers/run-main.js';
import { FIXTURES, tempDir } from './helpers.js';

// Every C0 control but LF and CR (which become <br>), DEL and every C1 control.
const CONTROLS = [
  ...Array.from({ length: 0x20 }, (_, code) => code).filter((code) => code !== 0x0a && code !== 0x0d),
  ...Array.from({ length: 0x21 }, (_, i) => 0x7f + i),
].map((code) => String.fromCharCode(code));
// eslint-disable-next-line no-control-regex -- finding raw control characters is the point
const RAW_CONTROL = /[\u0000-\u0009\u000B-\u001F\u007F-\u009F]/u;

describe('query --format markdown shows control characters visibly', () => {
  let work: Awaited<ReturnType<typeof tempDir>>;
  let db: string;

  beforeAll(async () => {
    work = await tempDir();
    db = path.join(work.dir, 'airt.duckdb');
    await loadSnapshots(db, [FIXTURES.first]);
  });
  afterAll(() => work.cleanup());

  it('writes a TAB in a cell and in a column name as \\u{0009}, not raw', async () => {
    const sql = `SELECT 'before' || chr(9) || 'after' AS "tab${'\t'}name"`;
    const run = await runMain(work.dir, ['query', sql, '--db', db, '--format', 'markdown']);
    expect(run.code, run.err).toBe(0);
    expect(run.out).not.toContain('\t');
    expect(run.out).toBe('| tab\\u{0009}name |\n| --- |\n| before\\u{0009}after |\n');
  });

  it('leaves no C0 or C1 control raw in a cell, each shown as its \\u{…} escape', () => {
    for (const char of CONTROLS) {
      const code = (char.codePointAt(0) ?? 0).toString(16).padStart(4, '0');
      const markdown = formatResult(
        { columns: [{ name: 'text', type: 'VARCHAR', json: false }], rows: [[`a${char}b`]] },
        'markdown',
      );
      expect(markdown, `U+${code}`).not.toMatch(RAW_CONTROL);
      expect(markdown, `U+${code}`).toContain(`| a\\u{${code}}b |`);
    }
    // The rule is the shared Markdown cell's, so the diff's tables show a TAB the same way.
    expect(escapeMarkdownCell('a\tb')).toBe('a\\u{0009}b');
  });
});
