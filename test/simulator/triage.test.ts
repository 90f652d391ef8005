/**
 * Writes: PATCH appends exactly one review event (original → updated) per change and later reads see
 * the change; PUT auto-refill stores and returns the settings.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { FindingDetail, ProjectSummary } from '../../src/api/schemas.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { autoRefillPath, getJson, findingPath, summaryPath } from './helpers.js';

let sim: RunningSimulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

describe('PATCH finding', () => {
  it('sets the fields, appends one event per edit and later reads see the change', async () => {
    sim = await startSimulator({ seed: 5, scale: { trialsPerAttack: 10 } });
    const key = sim.projectKeys[0] ?? '';
    const before = sim.truth.summary(key);
    const top = before.top_findings[0];
    const id = top?.attack_run_id ?? '';
    expect(id).not.toBe('');

    const first = await getJson<FindingDetail>(sim, findingPath(sim, id), {
      method: 'PATCH',
      body: { finding_status: 'false_positive', severity: 'low', notes: 'Judge misread a refusal <b>x</b>' },
    });
    expect(first).toMatchObject({
      id,
      finding_status: 'false_positive',
      severity: 'low',
      notes: 'Judge misread a refusal <b>x</b>',
    });
    expect(first.review_events).toHaveLength(1);
    expect(first.review_events[0]).toMatchObject({
      original_status: 'open',
      original_severity: top?.severity,
      original_finding_type: top?.finding_type,
      updated_status: 'false_positive',
      updated_severity: 'low',
      updated_finding_type: top?.finding_type,
      reasoning: 'Judge misread a refusal <b>x</b>',
    });
    expect(first.review_events[0]?.updated_at).toMatch(/^2026-01-05T00:01:00/);

    const second = await getJson<FindingDetail>(sim, findingPath(sim, id), {
      method: 'PATCH',
      body: { finding_type: 'refusal' },
    });
    expect(second.review_events).toHaveLength(2);
    expect(second.review_events[1]).toMatchObject({
      original_status: 'false_positive',
      updated_status: 'false_positive',
      original_severity: 'low',
      updated_finding_type: 'refusal',
    });
    expect(second).toMatchObject({
      finding_status: 'false_positive',
      finding_type: 'refusal',
      severity: 'low',
    });
    // Notes persist when a later edit does not send them.
    expect(second.notes).toBe('Judge misread a refusal <b>x</b>');

    const after = await getJson<ProjectSummary>(sim, summaryPath(sim, key));
    const row = after.top_findings.find((f) => f.attack_run_id === id);
    expect(row).toMatchObject({ severity: 'low', finding_type: 'refusal' });
  });

  it('records nothing for an empty body', async () => {
    sim = await startSimulator({ seed: 5, scale: { trialsPerAttack: 3 } });
    const id = sim.truth.findingIds(sim.projectKeys[0] ?? '')[2] ?? '';
    const detail = await getJson<FindingDetail>(sim, findingPath(sim, id), { method: 'PATCH', body: {} });
    expect(detail.review_events).toEqual([]);
    expect(detail.finding_status).toBe('open');
  });
});

describe('PUT auto-refill', () => {
  it('stores and returns the settings', async () => {
    sim = await startSimulator({ scale: { trialsPerAttack: 2 } });
    const body = { enabled: true, monthly_cap: 12, quantity: 3, threshold: 25_000 };
    const reply = await getJson(sim, autoRefillPath(sim), { method: 'PUT', body });
    expect(reply).toEqual({
      ...body,
      has_payment_method: true,
      month_count: 0,
      month_reset: '2026-02-01T00:00:00.000Z',
      disabled_reason: null,
    });
    const off = await getJson(sim, autoRefillPath(sim), { method: 'PUT', body: { ...body, enabled: false } });
    expect(off).toMatchObject({ enabled: false, disabled_reason: 'disabled_by_user' });
  });

  it('stays disabled without a payment method and says why', async () => {
    sim = await startSimulator({ hasPaymentMethod: false, scale: { trialsPerAttack: 2 } });
    const reply = await getJson(sim, autoRefillPath(sim), {
      method: 'PUT',
      body: { enabled: true, monthly_cap: 1, quantity: 1, threshold: 1000 },
    });
    expect(reply).toMatchObject({
      enabled: false,
      has_payment_method: false,
      disabled_reason: 'no_payment_method',
    });
  });
});
