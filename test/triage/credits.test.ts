import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AUTO_REFILL_BOUNDS } from '../../src/api/schemas.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { runCli } from '../helpers/cli.js';
import { run } from './helpers.js';

let sim: RunningSimulator;
let noPayment: RunningSimulator;
let dir: string;

beforeAll(async () => {
  [sim, noPayment] = await Promise.all([
    startSimulator({ seed: 3, readOnlyToken: 'read-only-token' }),
    startSimulator({ seed: 3, hasPaymentMethod: false }),
  ]);
});
afterAll(async () => {
  await Promise.all([sim.close(), noPayment.close()]);
});
beforeEach(async (context) => {
  dir = await mkdtemp(path.join(tmpdir(), 'airt-credits-'));
  context.onTestFinished(() => rm(dir, { recursive: true, force: true }));
});

const FLAGS = { threshold: '--threshold', quantity: '--quantity', monthly_cap: '--monthly-cap' } as const;
const MIDDLE = { threshold: 5000, quantity: 2, monthly_cap: 10 };

function argv(values: Record<keyof typeof FLAGS, number>, enabled = '--enabled'): string[] {
  return [
    'credits',
    'auto-refill',
    enabled,
    ...Object.entries(FLAGS).flatMap(([field, flag]) => [flag, String(values[field as keyof typeof FLAGS])]),
  ];
}

describe('credits auto-refill', () => {
  const edges = (Object.keys(FLAGS) as (keyof typeof FLAGS)[]).flatMap((field) => [
    [field, 'min', AUTO_REFILL_BOUNDS[field].min] as const,
    [field, 'max', AUTO_REFILL_BOUNDS[field].max] as const,
  ]);

  it.each(edges)('%s at its %s (%d) is accepted by the service', async (field, _edge, value) => {
    const result = await run(sim, dir, [...argv({ ...MIDDLE, [field]: value }), '--json']);
    expect(result.code).toBe(0);
    const printed = JSON.parse(result.out) as { response: Record<string, unknown>; warnings: string[] };
    expect(printed.response).toMatchObject({ enabled: true, has_payment_method: true, [field]: value });
    expect(printed.warnings).toEqual([]);
    expect(result.err).toBe('');
  });

  it.each(edges)('%s just past its %s is refused locally; nothing is sent', async (field, edge, value) => {
    const past = edge === 'min' ? value - 1 : value + 1;
    const before = sim.stats().requests;
    const result = await run(sim, dir, argv({ ...MIDDLE, [field]: past }));
    expect(result.code).toBe(2);
    expect(result.err).toContain(`${FLAGS[field]} must be at ${edge === 'min' ? 'least' : 'most'} ${value}`);
    expect(sim.stats().requests).toBe(before);
  });

  it('requires --enabled or --no-enabled and every number', async () => {
    const before = sim.stats().requests;
    const result = await run(sim, dir, ['credits', 'auto-refill', '--quantity', '2']);
    expect(result.code).toBe(2);
    expect(result.err).toContain('pass --enabled or --no-enabled');
    expect(result.err).toContain('--threshold is required (an integer from 1000 to 1000000)');
    expect(result.err).toContain('--monthly-cap is required (an integer from 1 to 50)');
    expect(sim.stats().requests).toBe(before);
  });

  it('shows the numbers as [number] in help, yet refuses 1e3, 0x2 and 1.5 as typed', async () => {
    // yargs prints help to the real stdout, so this part runs the CLI as a child process.
    const help = await runCli(['credits', '--help']);
    expect(help.code).toBe(0);
    for (const flag of Object.values(FLAGS))
      expect(help.stdout).toMatch(new RegExp(`${flag} .*\\[number\\]`));
    const before = sim.stats().requests;
    const result = await run(sim, dir, [
      'credits',
      'auto-refill',
      '--enabled',
      '--threshold',
      '1e3',
      '--quantity',
      '0x2',
      '--monthly-cap',
      '1.5',
    ]);
    expect(result.code).toBe(2);
    expect(result.err).toContain('--threshold must be an integer from 1000 to 1000000, got "1e3"');
    expect(result.err).toContain('--quantity must be an integer from 1 to 10, got "0x2"');
    expect(result.err).toContain('--monthly-cap must be an integer from 1 to 50, got "1.5"');
    expect(sim.stats().requests).toBe(before);
  });

  it('prints the settings as a table', async () => {
    const result = await run(sim, dir, argv(MIDDLE));
    expect(result.code).toBe(0);
    expect(result.out).toMatch(
      /Enabled\s+yes\nHas payment method\s+yes\nThreshold\s+5000\nQuantity\s+2\nMonthly cap\s+10\n/u,
    );
  });

  it('warns on stderr when the organization has no payment method; enabled but held off exits 3', async () => {
    const result = await run(noPayment, dir, argv(MIDDLE));
    expect(result.code).toBe(3);
    expect(result.out).toMatch(/Has payment method\s+no/u);
    expect(result.err).toContain(
      'Warning: The organization has no payment method (has_payment_method: false)',
    );
    expect(result.err).toContain(
      'Warning: enabled: asked true, but the service holds false (disabled_reason: no_payment_method): auto-refill will not buy credits.',
    );
  });

  it('reports a read-only token clearly, exit 1', async () => {
    const result = await run(sim, dir, argv(MIDDLE), { token: 'read-only-token' });
    expect(result.code).toBe(1);
    expect(result.err).toContain('PUT /api/v1/org/acme/credits/auto-refill was refused with 403');
  });
});
