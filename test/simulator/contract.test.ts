/**
 * Contract: for several seeds, every response of every operation parses strictly against the API
 * schemas, error bodies are envelopes, and every trial element carries all 20 keys the spec lists.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseStrict } from '../../src/api/parse.js';
import {
  AutoRefillConfigResponseSchema,
  ConfigResponseSchema,
  ErrorEnvelopeSchema,
  EvaluationJobListSchema,
  FindingDetailSchema,
  ProjectSummarySchema,
  TRIAL_KEYS,
  TrialListSchema,
} from '../../src/api/schemas.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import {
  autoRefillPath,
  call,
  evaluationsPath,
  findingPath,
  getJson,
  summaryPath,
  trialsPath,
} from './helpers.js';

describe.each([1, 7, 20260105])('contract, seed %i', (seed) => {
  let sim: RunningSimulator;
  beforeAll(async () => {
    sim = await startSimulator({ seed, hostileSlug: true, scale: { trialsPerAttack: 12 } });
  });
  afterAll(() => sim.close());

  it('config parses strictly and needs no token', async () => {
    parseStrict(ConfigResponseSchema, await getJson(sim, '/api/v1/config', { token: null }));
  });

  it('every summary and every trial list parses strictly; trials carry all 20 keys', async () => {
    for (const key of sim.projectKeys) {
      const summary = parseStrict(
        ProjectSummarySchema,
        await getJson(sim, summaryPath(sim, key)),
        `summary ${key}`,
      );
      expect(summary.project_key).toBe(key);
      for (const assessment of summary.assessments) {
        const trials = await getJson<Record<string, unknown>[]>(
          sim,
          trialsPath(sim, assessment.id, '?limit=5000'),
        );
        parseStrict(TrialListSchema, trials, `trials ${assessment.id}`);
        expect(trials).toHaveLength(assessment.total_trials);
        for (const trial of trials) for (const k of TRIAL_KEYS) expect(trial).toHaveProperty(k);
      }
    }
  });

  it('every evaluation page parses strictly', async () => {
    const first = parseStrict(
      EvaluationJobListSchema,
      await getJson(sim, evaluationsPath(sim, '?page_size=100')),
    );
    const pages = Math.ceil(first.total / 100);
    expect(pages).toBeGreaterThanOrEqual(3);
    for (let page = 2; page <= pages; page++) {
      parseStrict(
        EvaluationJobListSchema,
        await getJson(sim, evaluationsPath(sim, `?page=${page}&page_size=100`)),
      );
    }
  });

  it('PATCH returns a strict FindingDetail for every kind of finding and PUT a strict auto-refill response', async () => {
    for (const key of sim.projectKeys) {
      for (const id of sim.truth.findingIds(key).filter((_, i) => i % 7 === 0)) {
        parseStrict(
          FindingDetailSchema,
          await getJson(sim, findingPath(sim, id), { method: 'PATCH', body: { notes: 'checked' } }),
        );
      }
    }
    const body = { enabled: true, monthly_cap: 5, quantity: 2, threshold: 5000 };
    parseStrict(
      AutoRefillConfigResponseSchema,
      await getJson(sim, autoRefillPath(sim), { method: 'PUT', body }),
    );
  });

  it('error bodies are envelopes whose code equals the status', async () => {
    const cases = [
      await call(sim, summaryPath(sim, sim.projectKeys[0] ?? ''), { token: null }),
      await call(sim, summaryPath(sim, 'no-such-project')),
      await call(sim, evaluationsPath(sim, '?page=0')),
    ];
    for (const result of cases) {
      const envelope = parseStrict(ErrorEnvelopeSchema, JSON.parse(result.text));
      expect(envelope.code).toBe(result.status);
    }
  });
});
