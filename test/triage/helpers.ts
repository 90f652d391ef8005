/**
 * Shared pieces of the triage integration tests: running a command through main() against a real
 * simulator, and reading a finding's triage state back.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { main } from '../../src/cli/main.js';
import { recordingIO, type CliIO } from '../../src/cli/io.js';
import type { FindingDetail } from '../../src/api/schemas.js';
import type { RunningSimulator } from '../../src/simulator/index.js';
import type { JournalEntry } from '../../src/triage/journal.js';

export interface CommandRun {
  code: number;
  out: string;
  err: string;
}

/** Runs `airt-report <argv>` in-process with the simulator's connection in the environment. */
export async function run(
  sim: RunningSimulator,
  cwd: string,
  argv: string[],
  overrides: Partial<CliIO> & { token?: string } = {},
): Promise<CommandRun> {
  const { token, ...ioOverrides } = overrides;
  const io = recordingIO({
    cwd,
    env: {
      AIRT_BASE_URL: sim.url,
      AIRT_ORG: sim.org,
      AIRT_WORKSPACE: sim.workspace,
      AIRT_TOKEN: token ?? sim.token,
    },
    ...ioOverrides,
  });
  const code = await main(argv, io);
  return { code, out: io.out.join(''), err: io.err.join('') };
}

/**
 * Reads a finding's current triage state. The API has no GET for a finding, but the simulator answers
 * a PATCH with an empty body with the FindingDetail and records no review event, so it is a pure read
 * (our CLI never sends an empty body). A varying query string gives each attempt its own fault
 * decision; 429/502 are answered before the service acts, so retrying them is harmless. Bounded.
 */
export async function readFinding(sim: RunningSimulator, findingId: string): Promise<FindingDetail> {
  for (let attempt = 0; attempt < 40; attempt++) {
    const url = `${sim.url}/api/v1/org/${sim.org}/ws/${sim.workspace}/airt/findings/${findingId}?read=${attempt}`;
    const response = await fetch(url, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${sim.token}`, 'content-type': 'application/json' },
      body: '{}',
    }).catch(() => undefined);
    if (response?.status === 200) return (await response.json()) as FindingDetail;
    await response?.body?.cancel();
  }
  throw new Error(`could not read finding ${findingId}`);
}

/**
 * The journal's lines; by default only outcome lines, leaving out the "sending" line each request
 * writes before it leaves (`withSending` keeps them).
 */
export async function readJournalLines(
  file: string,
  options: { withSending?: boolean } = {},
): Promise<JournalEntry[]> {
  const text = await readFile(file, 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as JournalEntry)
    .filter((entry) => options.withSending === true || entry.outcome !== 'sending');
}

export function journalFile(dir: string): string {
  return path.join(dir, 'triage', 'journal.jsonl');
}
