/**
 * Which snapshot `run` shares from (its `--since`): the newest complete snapshot of the workspace,
 * else the newest partial one that fetched anything; never one that fetched nothing.
 */
import { describe, expect, it } from 'vitest';
import { sinceSnapshot } from '../../src/pipeline/run-steps.js';
import type { Manifest } from '../../src/snapshot/manifest.js';

function snapshot(
  id: string,
  status: Manifest['status'],
  fetched: boolean,
): { id: string; manifest: Manifest } {
  const files = fetched ? [{ request: { method: 'GET', path: '/api/v1/config' } }] : [{ request: null }];
  return { id, manifest: { status, files } as unknown as Manifest };
}

describe('sinceSnapshot', () => {
  it('takes the newest complete snapshot over a newer partial one', () => {
    const list = [
      snapshot('a', 'complete', true),
      snapshot('b', 'complete', true),
      snapshot('c', 'partial', true),
    ];
    expect(sinceSnapshot(list)?.id).toBe('b');
  });

  it('falls back to the newest partial snapshot that fetched something', () => {
    const list = [
      snapshot('a', 'partial', true),
      snapshot('b', 'partial', true),
      snapshot('c', 'partial', false),
    ];
    expect(sinceSnapshot(list)?.id).toBe('b');
  });

  it('has none when nothing was fetched or there is no snapshot', () => {
    expect(sinceSnapshot([snapshot('a', 'partial', false)])).toBeUndefined();
    expect(sinceSnapshot([])).toBeUndefined();
  });
});
