import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkBody, MAX_ISSUES_PER_FILE, readSummaryFacts } from '../../src/snapshot/check-body.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'airt-check-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function file(name: string, text: string): Promise<string> {
  const full = path.join(dir, name);
  await writeFile(full, text);
  return full;
}

describe('trial list validation', () => {
  const trials = [
    { trial_index: 0, score: 0.5, is_jailbreak: false, brand_new: 1 },
    { trial_index: 'one', score: 0.9 },
    { trial_index: 2, transforms: ['base64'], nested: { deeper: true } },
  ];

  it('finds the same issues and unknown keys whether streamed or read whole', async () => {
    const target = await file('trials.json', JSON.stringify(trials));
    const streamed = await checkBody('trials', target);
    const whole = await checkBody('trials', target, 10);
    expect(whole).toEqual(streamed);
    expect(streamed.records).toBe(3);
    expect(streamed.issues).toEqual([expect.objectContaining({ path: '$[1].trial_index' })]);
    expect(streamed.unknownKeys).toEqual(['$[*].brand_new', '$[*].nested']);
  });

  it('records a body cut off mid-array as invalid JSON, never throwing', async () => {
    const target = await file('cut.json', JSON.stringify(trials).slice(0, 40));
    for (const bytes of [undefined, 40]) {
      const check = await checkBody('trials', target, bytes);
      expect(check.records).toBeNull();
      expect(check.issues[0]?.code).toBe('invalid_json');
    }
  });

  it('reports a non-array body against the list schema', async () => {
    const check = await checkBody('trials', await file('object.json', '{"items":[]}'));
    expect(check.records).toBeNull();
    expect(check.issuesTotal).toBeGreaterThan(0);
  });

  it('keeps at most MAX_ISSUES_PER_FILE issues but counts them all', async () => {
    const bad = Array.from({ length: MAX_ISSUES_PER_FILE + 20 }, () => ({ score: 'high' }));
    const check = await checkBody('trials', await file('bad.json', JSON.stringify(bad)));
    expect(check.issues).toHaveLength(MAX_ISSUES_PER_FILE);
    expect(check.issuesTotal).toBe(MAX_ISSUES_PER_FILE + 20);
  });
});

describe('summary facts', () => {
  it('reads assessments defensively from a drifted body', async () => {
    const target = await file(
      'summary.json',
      JSON.stringify({
        project_id: 'p1',
        assessments: [
          { id: 'a1', updated_at: '2026-01-01T00:00:00Z', status: 'completed' },
          { id: 7 },
          null,
          { id: 'a2' },
        ],
      }),
    );
    expect(await readSummaryFacts(target)).toEqual({
      projectId: 'p1',
      assessments: [
        { id: 'a1', updatedAt: '2026-01-01T00:00:00Z', status: 'completed' },
        { id: 'a2', updatedAt: null, status: null },
      ],
    });
    const check = await checkBody('project_summary', target);
    expect(check.records).toBe(4);
    expect(check.issuesTotal).toBeGreaterThan(0);
    expect(check.issues.some((i) => i.path.startsWith('$.assessments[1]'))).toBe(true);
  });
});
