/** `airt-report demo [--out DIR]`: simulator + the whole pipeline, twice, with no setup. */
import type { Argv } from 'yargs';
import { defineCommand } from '../command.js';

interface DemoArgs {
  out: string;
}

export const demoCommand = defineCommand<DemoArgs>({
  command: 'demo',
  describe: 'Run the whole pipeline twice against the built-in simulator (no setup needed)',
  builder: (y: Argv) =>
    y.option('out', {
      type: 'string',
      default: '.airt-demo',
      describe: 'Directory for the demo outputs (cleared on each demo run)',
    }),
  run: async (args, io) => {
    const { runDemo } = await import('../../demo/run-demo.js');
    await runDemo(
      { out: args.out },
      { stdout: io.stdout, stderr: io.stderr, env: io.env, signal: io.signal },
    );
    return 0;
  },
});
