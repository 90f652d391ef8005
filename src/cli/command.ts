/**
 * How a command plugs into the CLI. A command file parses its flags into one typed options object,
 * calls one library function and prints; it returns the exit code. Heavy modules (DuckDB, Vega,
 * Handlebars, the simulator) are imported inside `run` so `--help` stays instant.
 */
import type { Argv } from 'yargs';
import type { CliIO } from './io.js';

export interface CommandDefinition<A = object> {
  /** yargs command string, e.g. `verify <dir>`. */
  command: string;
  describe: string;
  builder: (y: Argv) => Argv<A>;
  run: (args: A, io: CliIO) => Promise<number>;
}

/** Keeps the argument type of each command while letting the registry hold them in one list. */
export function defineCommand<A>(definition: CommandDefinition<A>): CommandDefinition<unknown> {
  return definition as unknown as CommandDefinition<unknown>;
}
