/**
 * The client against the project's simulator with ~20% injected faults
 * (`429=0.08,502=0.06,504=0.04,cut=0.02,retry_after=0`): every GET and PUT completes with data equal
 * to a fault-free run's, and a PATCH that met an injected 502 is not repeated.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiClient, type ApiClient, type RetryEvent } from '../../src/api/client.js';
import { isOutcomeUnknownError, type OutcomeUnknownError } from '../../src/api/errors.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';

const SEED = 11;
const FAULTS = '429=0.08,502=0.06,504=0.04,cut=0.02,retry_after=0';
const SCALE = { assessmentsPerProject: 5, attacksPerAssessment: 4, trialsPerAttack: 10, evaluationJobs: 230 };

let clean: RunningSimulator;
let faulty: RunningSimulator;
let cleanClient: ApiClient;
let faultyClient: ApiClient;
const retries: RetryEvent[] = [];

function clientFor(sim: RunningSimulator, onRetry?: (event: RetryEvent) => void): ApiClient {
  return createApiClient({
    baseUrl: sim.url,
    token: sim.token,
    concurrency: 4,
    timeoutMs: 10_000,
    // 20% faults: 12 attempts make a request that never gets through vanishingly unlikely, and the
    // faults are deterministic per seed, so this either always passes or always fails.
    retry: { maxAttempts: 12, baseDelayMs: 1, maxDelayMs: 5 },
    ...(onRetry ? { onRetry } : {}),
  });
}

beforeAll(async () => {
  clean = await startSimulator({ seed: SEED, projects: 2, scale: SCALE });
  faulty = await startSimulator({ seed: SEED, projects: 2, scale: SCALE, faults: FAULTS });
  cleanClient = clientFor(clean);
  faultyClient = clientFor(faulty, (event) => retries.push(event));
});

afterAll(async () => {
  await cleanClient?.close();
  await faultyClient?.close();
  await clean?.close();
  await faulty?.close();
});

describe('client against the simulator with ~20% faults', () => {
  it('every GET and PUT completes with the same data as a fault-free run', async () => {
    const { org, workspace } = faulty;
    const [a, b] = await Promise.all([cleanClient.getConfig(), faultyClient.getConfig()]);
    expect(b).toEqual(a);

    const [evalsClean, evalsFaulty] = await Promise.all([
      cleanClient.listAllEvaluations(org, workspace),
      faultyClient.listAllEvaluations(org, workspace),
    ]);
    expect(evalsFaulty.items).toEqual(evalsClean.items);
    expect(evalsFaulty.items.map((j) => j.id).sort()).toEqual([...faulty.truth.evaluationJobIds()].sort());
    expect(evalsFaulty.complete).toBe(true);
    expect(evalsFaulty.duplicateIds).toEqual([]);

    // Single pages at odd sizes: more distinct requests, so every fault kind gets its turn.
    for (const pageSize of [7, 25]) {
      for (let page = 1; (page - 1) * pageSize < evalsClean.total; page++) {
        const params = { page, pageSize };
        const [p1, p2] = await Promise.all([
          cleanClient.listEvaluations(org, workspace, params),
          faultyClient.listEvaluations(org, workspace, params),
        ]);
        expect(p2).toEqual(p1);
      }
    }

    for (const project of faulty.projectKeys) {
      const [s1, s2] = await Promise.all([
        cleanClient.getProjectSummary(org, workspace, project),
        faultyClient.getProjectSummary(org, workspace, project),
      ]);
      expect(s2).toEqual(s1);
      for (const assessmentId of faulty.truth.assessmentIds(project)) {
        for (const params of [{}, { limit: 5 }, { jailbreaksOnly: true }]) {
          const [t1, t2] = await Promise.all([
            cleanClient.listTrials(org, workspace, assessmentId, params),
            faultyClient.listTrials(org, workspace, assessmentId, params),
          ]);
          expect(t2).toEqual(t1);
          if (!('limit' in params) && !('jailbreaksOnly' in params)) {
            expect(t2.value).toHaveLength(faulty.truth.trialCount(assessmentId));
          }
        }
      }
    }

    const refill = { enabled: true, monthly_cap: 4, quantity: 2, threshold: 20_000 };
    const [r1, r2] = await Promise.all([
      cleanClient.configureAutoRefill(org, refill),
      faultyClient.configureAutoRefill(org, refill),
    ]);
    expect(r2).toEqual(r1);

    // The faults did happen and were retried through: the test is not passing on a quiet server.
    // (Faults are deterministic per seed; seed 11 with this workload meets every kind.)
    const faults = faulty.stats().faults;
    for (const kind of ['429', '502', '504', 'cut']) expect(faults[kind] ?? 0, kind).toBeGreaterThan(0);
    for (const prefix of ['429', '502', '504', 'body cut off']) {
      expect(
        retries.some((e) => e.method === 'GET' && e.reason.startsWith(prefix)),
        prefix,
      ).toBe(true);
    }
    expect(Object.values(clean.stats().faults).reduce((sum, n) => sum + n, 0)).toBe(0);
  });

  it('a PATCH that meets a 502 or 504 is reported as outcome unknown and sent exactly once', async () => {
    const { org, workspace } = faulty;
    const findings = faulty.projectKeys.flatMap((key) => faulty.truth.findingIds(key));
    const unknown: OutcomeUnknownError[] = [];
    let applied = 0;
    for (const findingId of findings) {
      const before = faulty.stats().requests;
      try {
        const { value } = await faultyClient.updateFinding(org, workspace, findingId, {
          finding_status: 'accepted_risk',
          notes: 'client-simulator test',
        });
        expect(value.id).toBe(findingId);
        expect(value.finding_status).toBe('accepted_risk');
        applied++;
      } catch (error) {
        if (!isOutcomeUnknownError(error)) throw error;
        unknown.push(error);
        // Nothing was sent after the answer that made the outcome unknown (earlier 429s may be retried).
        expect(faulty.stats().requests - before).toBe(error.attempts);
      }
      if (unknown.some((e) => e.status === 502) && applied > 0) break;
    }
    expect(unknown.some((e) => e.status === 502)).toBe(true);
    expect(applied).toBeGreaterThan(0);
  });
});
