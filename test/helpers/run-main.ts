/**
 * Runs `airt-report <argv>` in-process (`main` with a recording IO), for tests that check a command's
 * exit code and output without a child process (test/helpers/cli.ts runs one).
 */
import { main } from '../../src/cli/main.js';
import { recordingIO } from '../../src/cli/io.js';

export interface MainRun {
  code: number;
  out: string;
  err: string;
}

export async function runMain(cwd: string, argv: readonly string[]): Promise<MainRun> {
  const io = recordingIO({ cwd });
  const code = await main([...argv], io);
  return { code, out: io.out.join(''), err: io.err.join('') };
}
