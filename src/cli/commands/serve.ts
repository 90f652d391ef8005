/**
 * `airt-report serve --db FILE [--port 0] [--host 127.0.0.1]`: the read-only local viewer over the
 * warehouse, until Ctrl-C or SIGTERM (then the server and the database close and it exits 0, as the
 * simulator does: stopping is how a server's run ends).
 */
import path from 'node:path';
import { EXIT } from '../../errors.js';
import { defineCommand } from '../command.js';

interface ServeArgs {
  db: string;
  port: number;
  host: string;
}

export const serveCommand = defineCommand<ServeArgs>({
  command: 'serve',
  describe: 'Browse the warehouse in a local browser view (read-only, no script); prints the URL',
  builder: (y) =>
    y
      .option('db', {
        type: 'string',
        demandOption: true,
        describe: 'DuckDB database file (opened read-only)',
      })
      .option('port', { type: 'number', default: 0, describe: 'TCP port (0 picks a free one)' })
      .option('host', {
        type: 'string',
        default: '127.0.0.1',
        describe: 'Address to listen on; anything but loopback lets other machines read the warehouse',
      }),
  async run(args, io) {
    const { startViewer } = await import('../../viewer/server.js');
    const viewer = await startViewer({ db: path.resolve(io.cwd, args.db), host: args.host, port: args.port });
    if (viewer.exposed) {
      io.stderr(
        `Warning: listening on ${args.host}, not a loopback address: anyone who can reach it can read the warehouse (there is no login).\n`,
      );
    }
    io.stdout(`${viewer.url}\n`);
    io.stderr('Serving read-only. Press Ctrl+C to stop.\n');
    await new Promise<void>((resolve) => {
      if (io.signal.aborted) resolve();
      else io.signal.addEventListener('abort', () => resolve(), { once: true });
    });
    await viewer.close();
    io.stderr('Viewer stopped.\n');
    return EXIT.ok;
  },
});
