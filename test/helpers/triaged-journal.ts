/** A real triage journal for tests of what a snapshot or run does with one. */
import path from 'node:path';
import { recordingIO } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import type { RunningSimulator } from '../../src/simulator/index.js';

/**
 * Triages one finding through the CLI (`airt-report triage FINDING ARGS --journal JOURNAL`) against
 * the simulator, its address, org, workspace and token filled in; throws with the CLI's error output
 * when the command fails.
 */
export async function triageThroughCli(
  sim: RunningSimulator,
  dir: string,
  journal: string,
  findingId: string,
  args: readonly string[],
): Promise<void> {
  const io = recordingIO({ cwd: dir, env: { AIRT_TOKEN: sim.token } });
  const connection = ['--base-url', sim.url, '--org', sim.org, '--workspace', sim.workspace];
  const code = await main(['triage', findingId, ...args, '--journal', journal, ...connection], io);
  if (code !== 0) throw new Error(`triage exited ${code}: ${io.err.join('')}`);
}

/**
 * `DIR/triage/journal.jsonl` after one finding of the simulator's first project was triaged
 * (accepted_risk) through the CLI, so a snapshot with this journal copies that finding's body.
 */
export async function journalWithOneTriage(sim: RunningSimulator, dir: string): Promise<string> {
  const journal = path.join(dir, 'triage', 'journal.jsonl');
  const findingId = sim.truth.findingIds(sim.projectKeys[0]!)[0]!;
  await triageThroughCli(sim, dir, journal, findingId, ['--status', 'accepted_risk']);
  return journal;
}
