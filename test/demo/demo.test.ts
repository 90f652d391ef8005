import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runDemo } from '../../src/demo/run-demo.js';
import { verifyBundle } from '../../src/pipeline/verify-bundle.js';

const root = mkdtempSync(path.join(tmpdir(), 'airt-demo-test-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('airt-report demo', () => {
  it('runs the pipeline twice against the simulator and leaves verifiable outputs', async () => {
    const out: string[] = [];
    const err: string[] = [];
    const result = await runDemo(
      { out: path.join(root, 'demo') },
      { stdout: (t) => void out.push(t), stderr: (t) => void err.push(t), env: {} },
    );
    expect(result.runs).toHaveLength(2);
    const [first, second] = result.runs;
    expect(first?.summary.snapshot.status).toBe('complete');
    expect(path.basename(second?.summary.snapshot.since ?? '')).toBe(first?.summary.snapshot.id);
    expect(second?.summary.previous_snapshot_id).toBe(first?.summary.snapshot.id);

    const written = second?.summary.outputs.map((o) => o.path) ?? [];
    const bundle = written.find((p) => p.endsWith('.zip'));
    expect(bundle).toBeDefined();
    expect((await verifyBundle(bundle ?? '')).ok).toBe(true);
    expect(written.some((p) => p.endsWith('diff.md'))).toBe(true);
    expect(written.some((p) => p.endsWith('gate-report.md'))).toBe(true);

    const executive = written.find((p) => p.endsWith('report.html') && p.includes('executive'));
    expect(executive).toBeDefined();
    expect(readFileSync(executive ?? '', 'utf8')).toContain('Since last snapshot');
    // The operator's triage edit between the runs reaches the journal.
    const journal = readFileSync(path.join(result.out, 'triage', 'journal.jsonl'), 'utf8')
      .trim()
      .split('\n');
    expect(journal).toHaveLength(2);
    expect(journal.map((line) => (JSON.parse(line) as { outcome: string }).outcome)).toEqual([
      'sending',
      'applied',
    ]);
    // The paths a user opens go to stdout; progress to stderr.
    expect(out.join('')).toContain('airt.duckdb');
    expect(err.join('')).toContain('run #2');
  }, 180_000);

  it('refuses to clear a non-empty directory it did not create', async () => {
    const foreign = path.join(root, 'foreign');
    mkdirSync(foreign, { recursive: true });
    writeFileSync(path.join(foreign, 'keep.txt'), 'mine');
    await expect(runDemo({ out: foreign }, { stdout: () => {}, stderr: () => {}, env: {} })).rejects.toThrow(
      /not empty and was not made by the demo/,
    );
    expect(existsSync(path.join(foreign, 'keep.txt'))).toBe(true);
  });
});
