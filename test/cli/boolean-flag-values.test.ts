/**
 * Yes/no options take no value or exactly `true` / `false`, once (src/cli/boolean-flags.ts). yargs
 * alone read `--dry-run=yes` as false (a triage apply meant as a dry run sent its requests) and
 * `--enabled=yes` as "turn auto-refill off", and let the last of a repeated one win.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { stringify } from 'csv-stringify/sync';
import yargs from 'yargs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commands } from '../../src/cli/commands/index.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { runMain } from '../helpers/run-main.js';
import { makeTempDir } from '../helpers/temp-dirs.js';
import { readFinding } from '../triage/helpers.js';

let sim: RunningSimulator;
let dir: string;
let connection: string[];

beforeAll(async () => {
  sim = await startSimulator({ seed: 11, host: '127.0.0.1', port: 0 });
  dir = await makeTempDir('airt-boolean-flags-');
  await writeFile(path.join(dir, 'token'), `${sim.token}\n`);
  connection = [
    '--base-url',
    sim.url,
    '--org',
    sim.org,
    '--workspace',
    sim.workspace,
    '--token-file',
    path.join(dir, 'token'),
  ];
});
afterAll(() => sim.close());

const REFILL = ['--threshold', '5000', '--quantity', '2', '--monthly-cap', '10'];

function autoRefill(...flags: string[]): Promise<{ code: number; out: string; err: string }> {
  return runMain(dir, ['credits', 'auto-refill', ...flags, ...REFILL, ...connection, '--json']);
}

/** Runs `argv` and checks it was refused as a usage error (exit 2) with nothing sent to the service. */
async function refusedUnsent(argv: string[]): Promise<string> {
  const before = sim.stats().requests;
  const result = await runMain(dir, argv);
  expect(sim.stats().requests).toBe(before);
  expect(result.code).toBe(2);
  expect(result.out).toBe('');
  return result.err;
}

describe('credits auto-refill --enabled', () => {
  it.each(['yes', '1', 'maybe', 'TRUE', 'False', ''])(
    'refuses --enabled=%j and sends nothing',
    async (value) => {
      const err = await refusedUnsent([
        'credits',
        'auto-refill',
        `--enabled=${value}`,
        ...REFILL,
        ...connection,
      ]);
      expect(err).toBe(
        `airt-report: --enabled takes true or false, not ${JSON.stringify(value)} ` +
          '(--enabled and --enabled=true mean true; --no-enabled and --enabled=false mean false).\n' +
          'Run airt-report credits --help for usage.\n',
      );
    },
  );

  it.each(['true', 'false', 'yes'])(
    'refuses --no-enabled=%s (a value on the negated form)',
    async (value) => {
      const err = await refusedUnsent([
        'credits',
        'auto-refill',
        `--no-enabled=${value}`,
        ...REFILL,
        ...connection,
      ]);
      expect(err).toContain(`airt-report: --no-enabled takes no value, not "${value}" (`);
    },
  );

  it.each([
    [['--enabled', '--enabled=false'], '--enabled was given 2 times (--enabled, --enabled=false)'],
    [['--enabled', '--no-enabled'], '--enabled was given 2 times (--enabled, --no-enabled)'],
    [['--enabled=true', '--enabled=true'], '--enabled was given 2 times (--enabled=true, --enabled=true)'],
    [['--no-enabled', '--enabled', 'false'], '--enabled was given 2 times (--no-enabled, --enabled)'],
  ])('refuses a repeated boolean %j and sends nothing', async (flags, words) => {
    const err = await refusedUnsent(['credits', 'auto-refill', ...flags, ...REFILL, ...connection]);
    expect(err).toBe(`airt-report: ${words}; give it once.\nRun airt-report credits --help for usage.\n`);
  });

  it("refuses the tryout's --enabled --enabled=no for its value", async () => {
    const err = await refusedUnsent([
      'credits',
      'auto-refill',
      '--enabled',
      '--enabled=no',
      ...REFILL,
      ...connection,
    ]);
    expect(err).toContain('airt-report: --enabled takes true or false, not "no" (');
  });

  it.each([
    [['--enabled=true'], true],
    [['--enabled'], true],
    [['--enabled', 'true'], true],
    [['--enabled=false'], false],
    [['--enabled', 'false'], false],
    [['--no-enabled'], false],
  ])('still sends %j as enabled: %s', async (flags, enabled) => {
    const result = await autoRefill(...flags);
    expect(result.err).not.toContain('airt-report:');
    expect(result.code).toBe(0);
    const printed = JSON.parse(result.out) as { response: { enabled: boolean } };
    expect(printed.response.enabled).toBe(enabled);
  });
});

describe('triage apply --dry-run', () => {
  let ids: string[];
  const journal = (): string => path.join(dir, 'journal.jsonl');

  beforeAll(async () => {
    ids = sim.projectKeys.flatMap((key) => sim.truth.findingIds(key)).slice(0, 2);
    await writeFile(
      path.join(dir, 'dec.csv'),
      stringify([['finding_id', 'finding_status'], ...ids.map((id) => [id, 'false_positive'])]),
    );
  });

  async function reviewEvents(): Promise<number[]> {
    return Promise.all(ids.map(async (id) => (await readFinding(sim, id)).review_events.length));
  }

  it.each([
    ['--dry-run=yes'],
    ['--dryRun=1'],
    ['--dry-run', '--no-dry-run'],
    ['--dry-run', '--dry-run=false'],
  ])('refuses %j: exit 2, no PATCH, no review event', async (...flags) => {
    const events = await reviewEvents();
    const err = await refusedUnsent([
      'triage',
      'apply',
      'dec.csv',
      ...flags,
      '--journal',
      journal(),
      ...connection,
    ]);
    expect(err).toMatch(/^airt-report: --dry-run (takes true or false|was given 2 times)/u);
    expect(err).toContain('Run airt-report triage --help for usage.\n');
    expect(await reviewEvents()).toEqual(events);
  });

  it('--dry-run=true is still a dry run', async () => {
    const before = sim.stats().requests;
    const result = await runMain(dir, [
      'triage',
      'apply',
      'dec.csv',
      '--dry-run=true',
      '--journal',
      journal(),
      ...connection,
    ]);
    expect(result.code).toBe(0);
    expect(result.out).toContain('Dry run: nothing was sent.');
    expect(sim.stats().requests).toBe(before);
  });
});

describe('every boolean option of every command', () => {
  // Each command's yes/no options as its builder declares them, plus the global ones; with a word for
  // each required positional, which yargs checks before any option.
  const cases = commands.flatMap((definition) => {
    const parser = definition.builder(yargs([]).option('debug', { type: 'boolean' })) as unknown as {
      getOptions(): { boolean: string[] };
    };
    const [name = '', ...positionals] = definition.command.split(' ');
    const words = positionals.filter((p) => p.startsWith('<')).map(() => 'x');
    return parser.getOptions().boolean.map((option) => [name, option, words] as const);
  });

  it('finds the options it is about', () => {
    const names = cases.map(([command, option]) => `${command} --${option}`);
    expect(names).toEqual(expect.arrayContaining(['triage --dry-run', 'credits --enabled', 'load --debug']));
  });

  // The unknown flag keeps a command from running were the check missing (yargs refuses it), so this
  // cannot start a server or send anything; the check runs before yargs' own validation.
  it.each(cases)('%s --%s=yes is refused as a yes/no value', async (command, option, words) => {
    const result = await runMain(dir, [command, ...words, `--${option}=yes`, '--not-an-option']);
    expect(result.code).toBe(2);
    expect(result.err).toContain(`airt-report: --${option} takes true or false, not "yes" (`);
  });

  it.each(cases)('%s --%s given twice is refused', async (command, option, words) => {
    const result = await runMain(dir, [
      command,
      ...words,
      `--${option}`,
      `--no-${option}`,
      '--not-an-option',
    ]);
    expect(result.code).toBe(2);
    expect(result.err).toContain(
      `airt-report: --${option} was given 2 times (--${option}, --no-${option}); give it once.`,
    );
  });
});

describe('what the refusal shows and leaves alone', () => {
  it('shows a typed value with its control characters escaped', async () => {
    const result = await runMain(dir, ['verify', 'x', '--json=\u001b[2J']);
    expect(result.code).toBe(2);
    expect(result.err).toContain('airt-report: --json takes true or false, not "\\u001b[2J" (');
  });

  // Guard (passes before the change too): after `--` nothing is an option.
  it('leaves the words after -- alone', async () => {
    const result = await runMain(dir, ['verify', path.join(dir, 'missing'), '--', '--json=yes']);
    expect(result.code).toBe(1);
    expect(result.err).toContain('does not exist');
  });
});
