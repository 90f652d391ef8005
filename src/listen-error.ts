/**
 * A server's failure to listen as one line a user can act on (the port is taken, the host is not
 * this machine's), for the viewer and the simulator alike; anything else keeps its own message.
 */
import { CliError, WordedError } from './errors.js';

export function listenError(error: NodeJS.ErrnoException, host: string, port: number): Error {
  if (error.code === 'EADDRINUSE') {
    return new WordedError(
      (name) =>
        `Port ${port} on ${host} is already in use: choose another ${name('port')} (0 picks a free one).`,
    );
  }
  if (error.code === 'EADDRNOTAVAIL' || error.code === 'ENOTFOUND' || error.code === 'EACCES') {
    return new WordedError(
      (name) =>
        `Cannot listen on ${host} port ${port} (${error.code}): check ${name('host')} and ${name('port')}.`,
    );
  }
  return new CliError(`Cannot listen on ${host} port ${port}: ${error.message}`, 1, { cause: error });
}
