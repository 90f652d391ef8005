import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatLoadWarnings } from '../../src/cli/commands/load.js';
import { neutralizeControls } from '../../src/api/error-body.js';
import { copyFixture, FIXTURES, reseal, tempDir } from '../warehouse/helpers.js';
import { runMain } from '../helpers/run-main.js';

const ALL_WARNINGS =
  'SELECT snapshot_id, code, message, file FROM load_warnings ORDER BY snapshot_id, ordinal';

describe('load prints its warnings', () => {
  let work: Awaited<ReturnType<typeof tempDir>>;
  const cli = (...argv: string[]) => runMain(work.dir, argv);

  beforeAll(async () => {
    work = await tempDir('airt-cli-load-');
  });
  afterAll(() => work.cleanup());

  it('shows each warning of a snapshot on stderr, code and message, with no query hint when all are shown', async () => {
    const result = await cli(
      'load',
      FIXTURES.partial,
      '--db',
      path.join(work.dir, 'partial.duckdb'),
      '--quiet',
    );
    expect(result.code).toBe(0);
    expect(result.out).toContain('20260320T060000Z-partial: loaded (partial, verified), 2 warning(s)');
    expect(result.out).not.toContain('SELECT');
    expect(result.err).toBe(
      'warning: project_not_found: Project legacy-rag was not found (404 not_found_error)\n' +
        'warning: failed_request: GET /api/v1/org/acme/ws/staging/airt/assessments/a0000000-0000-4000-8000-000000000005/traces/trials failed: bad_gateway_error: upstream trace store unavailable (gave up after 6 attempts)\n',
    );
  });

  it('shows at most 10, one line each with control characters neutralized, then how to see the rest', async () => {
    const dir = await copyFixture(FIXTURES.first, work.dir);
    await reseal(dir, (manifest) => {
      manifest.warnings = Array.from({ length: 13 }, (_, i) => ({
        code: i === 0 ? 'hostile\u001b]0;pwned\u0007' : `w${String(i).padStart(2, '0')}`,
        message: i === 0 ? 'line one\nline two \u001b[31mred\u202e' : `message ${i}`,
      }));
    });
    const result = await cli('load', dir, '--db', path.join(work.dir, 'many.duckdb'), '--quiet');
    expect(result.code).toBe(0);
    expect(result.out).toContain('13 warning(s)');
    const lines = result.err.trimEnd().split('\n');
    expect(lines).toHaveLength(11);
    expect(lines[0]).toBe(
      'warning: hostile\\u{001b}]0;pwned\\u{0007}: line one\\nline two \\u{001b}[31mred\\u{202e}',
    );
    expect(lines.slice(1, 10)).toEqual(
      Array.from({ length: 9 }, (_, i) => `warning: w${String(i + 1).padStart(2, '0')}: message ${i + 1}`),
    );
    expect(lines[10]).toBe(`… and 3 more: ${ALL_WARNINGS}`);
    // eslint-disable-next-line no-control-regex -- asserting that none reached the terminal
    expect(result.err).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202e]/u);
  });

  it('names the snapshot when several snapshots warned', () => {
    const text = formatLoadWarnings(
      [
        { snapshotId: 's1', code: 'a', message: 'first', file: null },
        { snapshotId: 's2', code: 'b', message: 'second', file: 'x.json' },
      ],
      2,
      true,
      neutralizeControls,
    );
    expect(text).toBe('warning: s1: a: first\nwarning: s2: b: second\n');
  });
});
