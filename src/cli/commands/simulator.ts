/**
 * `airt-report simulator`: runs the deterministic synthetic service on a loopback port until
 * SIGINT/SIGTERM, printing where it listens and the environment lines that point the other commands
 * at it.
 */
import { defineCommand } from '../command.js';

interface SimulatorArgs {
  port: number;
  host: string;
  seed: number;
  token: string;
  org: string;
  workspace: string;
  projects?: number | undefined;
  faults?: string | undefined;
  epoch: number;
  preset: 'small' | 'large';
  'hostile-slug': boolean;
}

/** Quotes a value for a POSIX shell `export` line when it holds anything but safe characters. */
function shellQuote(value: string): string {
  return /^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
}

export const simulatorCommand = defineCommand<SimulatorArgs>({
  command: 'simulator',
  describe: 'Run the synthetic red-teaming service locally (deterministic data, optional faults)',
  builder: (y) =>
    y
      .option('port', { type: 'number', default: 8787, describe: 'TCP port (0 picks a free one)' })
      .option('host', { type: 'string', default: '127.0.0.1', describe: 'Loopback address to listen on' })
      .option('seed', { type: 'number', default: 1, describe: 'Data seed: same seed, same bytes' })
      .option('token', {
        type: 'string',
        default: 'sim-token',
        describe: 'Bearer token the simulator accepts (not a secret)',
      })
      .option('org', { type: 'string', default: 'acme', describe: 'Organization slug' })
      .option('workspace', { type: 'string', default: 'main', describe: 'Workspace slug' })
      .option('projects', { type: 'number', describe: 'Number of projects [default: 3, large preset 6]' })
      .option('faults', {
        type: 'string',
        describe: 'Fault injection, e.g. 429=0.1,502=0.05,504=0.02,latency=20ms,cut=0.01',
      })
      .option('epoch', {
        type: 'number',
        default: 0,
        describe: 'Logical time step: later epochs add assessments, a regression, job changes',
      })
      .option('preset', {
        choices: ['small', 'large'] as const,
        default: 'small' as const,
        describe: 'Data size (large: >= 1,000,000 trial spans)',
      })
      .option('hostile-slug', {
        type: 'boolean',
        default: false,
        describe: 'Add a project whose slug is ../../etc',
      }),
  async run(args, io) {
    const { startSimulator } = await import('../../simulator/index.js');
    const sim = await startSimulator({
      port: args.port,
      host: args.host,
      seed: args.seed,
      token: args.token,
      org: args.org,
      workspace: args.workspace,
      ...(args.projects === undefined ? {} : { projects: args.projects }),
      ...(args.faults === undefined ? {} : { faults: args.faults }),
      epoch: args.epoch,
      preset: args.preset,
      hostileSlug: args['hostile-slug'],
    });
    // Shell comments around the exports, so `simulator > sim.env &` then `. ./sim.env` works.
    io.stdout(
      [
        `# Simulator listening on ${sim.url}`,
        `# org: ${sim.org}`,
        `# workspace: ${sim.workspace}`,
        `# projects: ${sim.projectKeys.join(', ')}`,
        `export AIRT_BASE_URL=${shellQuote(sim.url)}`,
        `export AIRT_ORG=${shellQuote(sim.org)}`,
        `export AIRT_WORKSPACE=${shellQuote(sim.workspace)}`,
        `export AIRT_TOKEN=${shellQuote(sim.token)}`,
        '',
      ].join('\n'),
    );
    io.stderr('Press Ctrl+C to stop.\n');
    await new Promise<void>((resolve) => {
      if (io.signal.aborted) resolve();
      else io.signal.addEventListener('abort', () => resolve(), { once: true });
    });
    await sim.close();
    io.stderr(`Simulator stopped after ${sim.stats().requests} requests.\n`);
    return 0;
  },
});
