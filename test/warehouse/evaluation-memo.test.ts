/**
 * The memo key of an evaluation job (evaluation-memo.ts): of the job's bytes in its page and its
 * project's key, not of where the page lists it; pages whose jobs cannot be found in their bytes, and
 * jobs without a string id, get none (they are built, as before).
 */
import { describe, expect, it } from 'vitest';
import { evaluationJobKeys, evaluationJobMemoKey } from '../../src/warehouse/evaluation-memo.js';

const PROJECT = '5f1c2a9e-8b3d-4c7a-9e21-0a6b7c8d9e01';
const projectKeys = new Map([[PROJECT, 'payments-bot']]);
const job = (id: string): string => `{"id": "${id}", "project_id": "${PROJECT}", "job_status": "completed"}`;

/** A page's bytes and its parsed body, as the load has them. */
function page(items: readonly string[], layout = ' '): { bytes: Buffer; body: unknown } {
  const text = `{"items": [${items.join(`,${layout}`)}], "page": 1, "total": ${items.length}}`;
  return { bytes: Buffer.from(text), body: JSON.parse(text) as unknown };
}

describe('the memo key of an evaluation job', () => {
  it('is a key of its bytes and its project key, not of its place on the page', () => {
    const one = page([job('a'), job('b')]);
    const moved = page([job('new'), job('a'), job('b')], '\n    ');
    const keys = evaluationJobKeys(one.bytes, one.body, projectKeys)!;
    const movedKeys = evaluationJobKeys(moved.bytes, moved.body, projectKeys)!;
    expect(movedKeys.slice(1)).toEqual(keys);
    expect(keys[0]).toBe(evaluationJobMemoKey(Buffer.from(job('a')), 'payments-bot'));
    expect(new Set(movedKeys).size).toBe(3);
    // Another project key (the summaries name the project otherwise): another key.
    const renamed = evaluationJobKeys(one.bytes, one.body, new Map([[PROJECT, 'renamed']]))!;
    expect(renamed[0]).not.toBe(keys[0]);
    // Other bytes for the same value (whitespace): another key, built once more.
    const spaced = page([job('a').replace('": "', '":"'), job('b')]);
    expect(evaluationJobKeys(spaced.bytes, spaced.body, projectKeys)![0]).not.toBe(keys[0]);
  });

  it('is not given to a job without a string id, nor to a page whose jobs are not found in its bytes', () => {
    const odd = page([job('a'), '{"id": 7}', '"not a job"', '{"name": "no id"}']);
    expect(evaluationJobKeys(odd.bytes, odd.body, projectKeys)?.map((k) => k !== undefined)).toEqual([
      true,
      false,
      false,
      false,
    ]);
    const { bytes } = page([job('a'), job('b')]);
    // The body is not the list the bytes hold (one item fewer), or no list at all.
    expect(evaluationJobKeys(bytes, page([job('a')]).body, projectKeys)).toBeUndefined();
    expect(evaluationJobKeys(bytes, { items: 'none' }, projectKeys)).toBeUndefined();
    const twice = Buffer.from(`{"items": [${job('a')}], "items": [${job('b')}]}`);
    expect(evaluationJobKeys(twice, { items: [{ id: 'b' }] }, projectKeys)).toBeUndefined();
  });
});
