/**
 * `query --format markdown` output is pasted where Markdown is rendered (a ticket, a wiki): data text
 * must stay text there. A user tryout found a bare URL from the data rendered as a live link by GFM
 * (the reports and the diff escaped it; the query's cells did not). Rendered here with `marked` (GFM).
 */
import path from 'node:path';
import { marked } from 'marked';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSnapshots } from '../../src/warehouse/loader.js';
import { FIXTURES, tempDir } from './helpers.js';
import { runMain } from '../helpers/run-main.js';

describe('query --format markdown keeps links from the data as text', () => {
  let work: Awaited<ReturnType<typeof tempDir>>;
  let db: string;

  beforeAll(async () => {
    work = await tempDir();
    db = path.join(work.dir, 'airt.duckdb');
    await loadSnapshots(db, [FIXTURES.first]);
  });
  afterAll(() => work.cleanup());

  it('renders no link or image from a URL, a www. name, an e-mail address or Markdown link syntax', async () => {
    const values = [
      'see https://attacker.example/a.png now',
      'visit www.attacker.example today',
      'write to someone@attacker.example',
      '![x](https://attacker.example/pixel.png)',
      '[click](http://attacker.example)',
      '<https://attacker.example>',
    ];
    const sql = `SELECT * FROM (VALUES ${values.map((v) => `('${v}')`).join(', ')}) AS t(text)`;
    const run = await runMain(work.dir, ['query', sql, '--db', db, '--format', 'markdown']);
    expect(run.code).toBe(0);
    const markdown = run.out;
    const html = await marked.parse(markdown, { gfm: true });
    expect(html).not.toMatch(/<a\s|<img\s/i);
    // The text itself is all there, readable.
    for (const value of values)
      expect(
        html.replace(/&amp;|&lt;|&gt;/g, (e) => ({ '&amp;': '&', '&lt;': '<', '&gt;': '>' })[e]!),
      ).toContain(value);
    // Plain punctuation is left alone: a time's colons, a number's point.
    const plain = await runMain(work.dir, [
      'query',
      "SELECT '04:25:44' AS t, 0.5 AS x",
      '--db',
      db,
      '--format',
      'markdown',
    ]);
    expect(plain.out).toContain('| 04:25:44 | 0.5 |');
  });
});
