/**
 * The validation pool (src/snapshot/check-pool.ts): checks run on worker threads give exactly what
 * checkBody gives on the main thread (records, issues with their paths and messages, unknown keys),
 * an I/O error comes back with checkBody's own message and errno code, and a closed pool refuses work
 * with a clear error instead of hanging.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkBody } from '../../src/snapshot/check-body.js';
import { CheckPool } from '../../src/snapshot/check-pool.js';
import type { FileKind } from '../../src/snapshot/manifest.js';

let dir: string;
let pool: CheckPool;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'airt-check-pool-'));
  pool = new CheckPool(2);
});
afterAll(async () => {
  await pool.close();
  await rm(dir, { recursive: true, force: true });
});

async function file(name: string, text: string): Promise<string> {
  const full = path.join(dir, name);
  await writeFile(full, text);
  return full;
}

const drifted = JSON.stringify([
  { trial_index: 0, score: 0.5, is_jailbreak: false, brand_new: 1 },
  { trial_index: 'one', score: 0.9 },
  { trial_index: 2, transforms: ['base64'], nested: { deeper: true } },
]);

const cases: { name: string; kind: FileKind; text: string }[] = [
  { name: 'drifted-trials.json', kind: 'trials', text: drifted },
  { name: 'not-an-array.json', kind: 'trials', text: '{"items":[]}' },
  { name: 'cut.json', kind: 'trials', text: drifted.slice(0, 40) },
  { name: 'bad-scores.json', kind: 'trials', text: JSON.stringify(Array(80).fill({ score: 'high' })) },
  { name: 'config.json', kind: 'config', text: '{"api_version":"1.0","app_version":7}' },
  { name: 'page.json', kind: 'evaluations_page', text: '{"items":[{"id":1}],"total":"x"}' },
  {
    name: 'summary.json',
    kind: 'project_summary',
    text: JSON.stringify({ project_id: 'p', assessments: [{ id: 'a', status: 3, extra: true }], added: 1 }),
  },
  { name: 'not-json.json', kind: 'finding', text: '<html>oops</html>' },
];

describe('validation on worker threads', () => {
  it('gives what checkBody gives on the main thread, from the file and from memory', async () => {
    for (const { name, kind, text } of cases) {
      const target = await file(name, text);
      const bytes = Buffer.byteLength(text);
      const content = new Uint8Array(Buffer.from(text));
      const expectedFromFile = await checkBody(kind, target);
      const expectedFromMemory = await checkBody(kind, target, bytes, content);
      const [fromFile, fromMemory] = await Promise.all([
        pool.run({ kind, file: target, bytes: undefined, content: undefined }),
        pool.run({ kind, file: target, bytes, content }),
      ]);
      expect(fromFile, name).toEqual(expectedFromFile);
      expect(fromMemory, name).toEqual(expectedFromMemory);
      // The caller's bytes are copied, not taken.
      expect(Buffer.from(content).toString('utf8')).toBe(text);
    }
  });

  it('keeps drift findings clear: element paths, messages and wildcard unknown keys', async () => {
    const target = await file('drift-again.json', drifted);
    const check = await pool.run({
      kind: 'trials',
      file: target,
      bytes: undefined,
      content: undefined,
    });
    expect(check.records).toBe(3);
    expect(check.issues.map((issue) => issue.path)).toEqual(['$[1].trial_index']);
    expect(check.issues[0]?.message).toMatch(/number/);
    expect(check.unknownKeys).toEqual(['$[*].brand_new', '$[*].nested']);
  });

  it('answers many queued jobs, each with its own result', async () => {
    const files = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        file(`many-${i}.json`, JSON.stringify(Array.from({ length: i }, (_, j) => ({ trial_index: j })))),
      ),
    );
    const outcomes = await Promise.all(
      files.map((target) => pool.run({ kind: 'trials', file: target, bytes: undefined, content: undefined })),
    );
    expect(outcomes.map((check) => check.records)).toEqual(files.map((_, i) => i));
  });

  it("passes an I/O error on with checkBody's message and code", async () => {
    const missing = path.join(dir, 'missing.json');
    const expected = await checkBody('config', missing).catch((error: NodeJS.ErrnoException) => error);
    const error = await pool
      .run({ kind: 'config', file: missing, bytes: undefined, content: undefined })
      .catch((e: NodeJS.ErrnoException) => e);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toBe((expected as Error).message);
    expect((error as NodeJS.ErrnoException).code).toBe('ENOENT');
  });

  it('refuses work once closed, with a clear error', async () => {
    const closing = new CheckPool(1);
    closing.warmUp();
    await closing.close();
    await expect(
      closing.run({
        kind: 'config',
        file: path.join(dir, 'config.json'),
        bytes: 1,
        content: undefined,
      }),
    ).rejects.toThrow('The validation pool was closed.');
  });
});
