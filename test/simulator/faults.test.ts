/**
 * Fault injection: the spec parser, determinism per (seed, method, path+query, n-th request), every
 * fault kind occurring with its documented shape, and `/_sim/*` never faulted.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { EXIT } from '../../src/errors.js';
import { parseFaultSpec } from '../../src/simulator/faults.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { evaluationsPath, trialsPath } from './helpers.js';

interface Outcome {
  status: number | 'cut';
  contentType: string;
  retryAfter: string | null;
  text: string;
}

async function attempt(sim: RunningSimulator, path: string): Promise<Outcome> {
  const response = await fetch(`${sim.url}${path}`, { headers: { authorization: `Bearer ${sim.token}` } });
  const base = {
    contentType: response.headers.get('content-type') ?? '',
    retryAfter: response.headers.get('retry-after'),
  };
  try {
    return { ...base, status: response.status, text: await response.text() };
  } catch {
    return { ...base, status: 'cut', text: '' };
  }
}

let sims: RunningSimulator[] = [];
afterEach(async () => {
  await Promise.all(sims.map((s) => s.close()));
  sims = [];
});

async function start(faults: string, seed = 4): Promise<RunningSimulator> {
  const sim = await startSimulator({ seed, faults, scale: { trialsPerAttack: 6 } });
  sims.push(sim);
  return sim;
}

describe('parseFaultSpec', () => {
  it('parses rates, latency and retry_after', () => {
    expect(parseFaultSpec('429=0.1,502=0.05,504=0.02,latency=20ms,cut=0.01,retry_after=3')).toEqual({
      rate429: 0.1,
      rate502: 0.05,
      rate504: 0.02,
      rateCut: 0.01,
      latencyMs: 20,
      retryAfterS: 3,
    });
    expect(parseFaultSpec('latency=1s').latencyMs).toBe(1000);
    expect(parseFaultSpec('').retryAfterS).toBe(1);
  });

  it.each([
    ['503=0.1', /Unknown options\.faults kind "503"/],
    ['429=2', /rate must be a number from 0 to 1/],
    ['429', /Bad options\.faults entry/],
    ['latency=fast', /latency=20ms/],
    ['retry_after=1.5', /whole seconds/],
    ['429=0.6,502=0.6', /sum must be at most 1/],
  ])('rejects %s with a usage error that says what to write', (spec, message) => {
    expect(() => parseFaultSpec(spec)).toThrow(message);
    try {
      parseFaultSpec(spec);
    } catch (error) {
      expect((error as { exitCode: number }).exitCode).toBe(EXIT.usage);
    }
  });
});

describe('injected faults', () => {
  it('are deterministic per seed and request sequence, independent of other paths', async () => {
    const spec = '429=0.2,502=0.1,504=0.1,cut=0.1';
    const a = await start(spec);
    const b = await start(spec);
    const path = evaluationsPath(a, '?page_size=5');
    const seqA: (number | string)[] = [];
    const seqB: (number | string)[] = [];
    for (let i = 0; i < 30; i++) seqA.push((await attempt(a, path)).status);
    // Interleave unrelated requests on b: the decisions for `path` must not change.
    for (let i = 0; i < 30; i++) {
      await attempt(b, evaluationsPath(b, `?page_size=6&page=${i + 1}`));
      seqB.push((await attempt(b, path)).status);
    }
    expect(seqB).toEqual(seqA);
    expect(new Set(seqA).size).toBeGreaterThan(1);
    expect(seqA).toContain(200);
  });

  it('produce every kind with its documented shape', async () => {
    const sim = await start('429=0.2,502=0.2,504=0.2,cut=0.2,retry_after=2');
    const assessment = sim.truth.assessmentIds(sim.projectKeys[0] ?? '')[1] ?? '';
    const seen = new Map<string, Outcome[]>();
    for (let i = 0; i < 80; i++) {
      const outcome = await attempt(sim, trialsPath(sim, assessment, `?limit=${(i % 40) + 1}`));
      const key =
        outcome.status === 502
          ? outcome.contentType.startsWith('text/html')
            ? '502-html'
            : '502-json'
          : String(outcome.status);
      seen.set(key, [...(seen.get(key) ?? []), outcome]);
    }
    expect([...seen.keys()].sort()).toEqual(['200', '429', '502-html', '502-json', '504', 'cut']);
    for (const o of seen.get('429') ?? []) {
      expect(o.retryAfter).toBe('2');
      expect(JSON.parse(o.text)).toMatchObject({ code: 429 });
    }
    for (const o of seen.get('502-html') ?? []) expect(o.text).toContain('<h1>502 Bad Gateway</h1>');
    for (const o of seen.get('502-json') ?? [])
      expect(JSON.parse(o.text)).toMatchObject({ code: 502, type: 'bad_gateway_error' });
    for (const o of seen.get('504') ?? [])
      expect(JSON.parse(o.text)).toMatchObject({ code: 504, type: 'gateway_timeout_error' });
    const stats = sim.stats();
    expect(stats.requests).toBe(80);
    expect(stats.faults['cut']).toBe(seen.get('cut')?.length);
    expect(stats.faults['429']).toBe(seen.get('429')?.length);
  });

  it('cuts a body after announcing its full Content-Length', async () => {
    const sim = await start('cut=1');
    const path = trialsPath(sim, sim.truth.assessmentIds(sim.projectKeys[0] ?? '')[1] ?? '', '?limit=50');
    const response = await fetch(`${sim.url}${path}`, { headers: { authorization: `Bearer ${sim.token}` } });
    expect(response.status).toBe(200);
    expect(Number(response.headers.get('content-length'))).toBeGreaterThan(1000);
    await expect(response.text()).rejects.toThrow();
  });

  it('never touch /_sim/*', async () => {
    const sim = await start('429=1,latency=5ms');
    expect((await attempt(sim, '/api/v1/config')).status).toBe(429);
    const epoch = await fetch(`${sim.url}/_sim/epoch`, { headers: { authorization: `Bearer ${sim.token}` } });
    expect(epoch.status).toBe(200);
    expect(sim.stats().requests).toBe(1);
  });
});
