/**
 * Determinism: the same seed gives the same bytes for every operation, whatever the order of the
 * requests; a different seed gives different data.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { call, evaluationsPath, summaryPath, trialsPath } from './helpers.js';

const scale = { trialsPerAttack: 15 };

async function bodies(sim: RunningSimulator, reverse: boolean): Promise<Map<string, string>> {
  const paths = ['/api/v1/config', evaluationsPath(sim, '?page=2&page_size=100')];
  for (const key of sim.projectKeys) {
    paths.push(summaryPath(sim, key));
    for (const id of sim.truth.assessmentIds(key)) paths.push(trialsPath(sim, id, '?limit=5000'));
  }
  if (reverse) paths.reverse();
  const out = new Map<string, string>();
  for (const path of paths) {
    const result = await call(sim, path);
    expect(result.status).toBe(200);
    out.set(path, result.text);
  }
  return out;
}

describe('determinism', () => {
  let a: RunningSimulator;
  let b: RunningSimulator;
  let c: RunningSimulator;
  beforeAll(async () => {
    [a, b, c] = await Promise.all([
      startSimulator({ seed: 11, scale }),
      startSimulator({ seed: 11, scale }),
      startSimulator({ seed: 12, scale }),
    ]);
  });
  afterAll(() => Promise.all([a.close(), b.close(), c.close()]));

  it('serves byte-identical responses for the same seed, in any request order', async () => {
    const first = await bodies(a, false);
    const second = await bodies(b, true);
    expect(second.size).toBe(first.size);
    for (const [path, body] of first) expect(second.get(path), path).toBe(body);
  });

  it('serves different data for a different seed', async () => {
    expect(c.truth.assessmentIds(c.projectKeys[0] ?? '')).not.toEqual(
      a.truth.assessmentIds(a.projectKeys[0] ?? ''),
    );
    const pa = await call(a, summaryPath(a, a.projectKeys[0] ?? ''));
    const pc = await call(c, summaryPath(c, c.projectKeys[0] ?? ''));
    expect(pc.text).not.toBe(pa.text);
  });

  it('keeps the project keys and the config stable across seeds', async () => {
    expect(c.projectKeys).toEqual(a.projectKeys);
    expect((await call(c, '/api/v1/config')).text).toBe((await call(a, '/api/v1/config')).text);
  });
});
