import { cliMessage } from '../../src/cli/option-names.js';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createApiClient } from '../../src/api/client.js';
import { NotFoundError } from '../../src/api/errors.js';
import type { UpdateFindingRequest } from '../../src/api/schemas.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { triageFinding } from '../../src/triage/triage-finding.js';
import { journalFile, readFinding, readJournalLines, run } from './helpers.js';

let sim: RunningSimulator;
let findings: string[];
let dir: string;

beforeAll(async () => {
  sim = await startSimulator({ seed: 7, readOnlyToken: 'read-only-token' });
  findings = sim.truth.findingIds(sim.projectKeys[0] ?? '');
});
afterAll(async () => {
  await sim.close();
});
beforeEach(async (context) => {
  dir = await mkdtemp(path.join(tmpdir(), 'airt-triage-'));
  context.onTestFinished(() => rm(dir, { recursive: true, force: true }));
});

/** Control characters other than newline and tab, and bidi embeddings/overrides/isolates. */
function isUnsafeForTerminal(char: string): boolean {
  const code = char.codePointAt(0) ?? 0;
  if (code === 0x0a || code === 0x09) return false;
  return (
    code < 0x20 ||
    (code >= 0x7f && code <= 0x9f) ||
    (code >= 0x202a && code <= 0x202e) ||
    (code >= 0x2066 && code <= 0x2069)
  );
}

function finding(index: number): string {
  const id = findings[index];
  if (!id) throw new Error(`the simulator has no finding #${index}`);
  return id;
}

describe('triage FINDING_ID', () => {
  it('updates the finding, appends exactly one review event and journals the change', async () => {
    const id = finding(0);
    const before = await readFinding(sim, id);
    const result = await run(sim, dir, [
      'triage',
      id,
      '--status',
      'false_positive',
      '--severity',
      'low',
      '--notes',
      'benign, per docs',
    ]);
    expect(result).toMatchObject({ code: 0, err: '' });
    expect(result.out).toMatch(/Status\s+false_positive/u);
    expect(result.out).toMatch(/Severity\s+low/u);
    expect(result.out).toMatch(/Notes\s+benign, per docs/u);
    expect(result.out).toContain(`Review history (${before.review_events.length + 1} event`);
    expect(result.out).toContain(`${before.finding_status} → false_positive`);

    const after = await readFinding(sim, id);
    expect(after).toMatchObject({
      finding_status: 'false_positive',
      severity: 'low',
      notes: 'benign, per docs',
    });
    expect(after.review_events).toHaveLength(before.review_events.length + 1);
    expect(after.review_events.at(-1)).toMatchObject({
      original_status: before.finding_status,
      updated_status: 'false_positive',
      updated_severity: 'low',
    });

    const lines = await readJournalLines(journalFile(dir));
    expect(lines).toHaveLength(1);
    const [line] = lines;
    expect(Object.keys(line ?? {})).toEqual([
      'journal',
      'time',
      'org',
      'workspace',
      'finding_id',
      'request',
      'outcome',
      'http_status',
      'error',
      'finding',
      'source',
    ]);
    expect(line).toMatchObject({
      journal: 'airt-triage/1',
      org: sim.org,
      workspace: sim.workspace,
      finding_id: id,
      request: { finding_status: 'false_positive', severity: 'low', notes: 'benign, per docs' },
      outcome: 'applied',
      http_status: 200,
      error: null,
      source: 'cli',
      finding: { id, finding_status: 'false_positive', severity: 'low' },
    });
    expect(line?.time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/u);
  });

  it('prints JSON with --json and honours --journal', async () => {
    const id = finding(1);
    const result = await run(sim, dir, [
      'triage',
      id,
      '--type',
      'partial',
      '--json',
      '--journal',
      'audit/j.jsonl',
    ]);
    expect(result.code).toBe(0);
    const printed = JSON.parse(result.out) as {
      outcome: string;
      finding: { finding_type: string; id: string };
    };
    expect(printed).toMatchObject({ outcome: 'applied', finding: { id, finding_type: 'partial' } });
    expect(await readJournalLines(path.join(dir, 'audit', 'j.jsonl'))).toHaveLength(1);
  });

  it('prints hostile notes without control or bidi characters', async () => {
    const id = finding(2);
    const notes = 'ok\u001b[2J\u001b]0;pwned\u0007 \u202Eexe.txt\nline2';
    const table = await run(sim, dir, ['triage', id, '--notes', notes]);
    const json = await run(sim, dir, ['triage', id, '--notes', notes, '--json']);
    for (const output of [table.out, json.out]) {
      expect([...output].filter(isUnsafeForTerminal)).toEqual([]);
    }
    expect(table.out).toContain('ok\\u{001b}[2J');
    expect((JSON.parse(json.out) as { finding: { notes: string } }).finding.notes).toBe(notes);
  });

  it.each([
    [
      ['--status', 'fixed'],
      '--status: "fixed" is not allowed; use one of: open, false_positive, accepted_risk, remediated, incorrect_scoring',
    ],
    [
      ['--type', 'jail'],
      '--type: "jail" is not allowed; use one of: jailbreak, partial, refusal, error, evasion, degradation, robust',
    ],
    [
      ['--severity', 'urgent'],
      '--severity: "urgent" is not allowed; use one of: critical, high, medium, low, info',
    ],
    [[], 'nothing to change: pass at least one of --status, --type, --severity, --notes'],
  ])('refuses %j locally: nothing sent, exit 2', async (flags, message) => {
    const before = sim.stats().requests;
    const result = await run(sim, dir, ['triage', finding(3), ...flags]);
    expect(result.code).toBe(2);
    expect(result.err).toContain(message);
    expect(sim.stats().requests).toBe(before);
    expect(await readJournalLines(journalFile(dir))).toEqual([]);
  });

  it('refuses a finding id that is not a UUID: nothing sent, exit 2', async () => {
    const before = sim.stats().requests;
    const result = await run(sim, dir, ['triage', '../../credits/auto-refill', '--status', 'open']);
    expect(result.code).toBe(2);
    expect(result.err).toContain('FINDING_ID: "../../credits/auto-refill" is not a UUID');
    expect(sim.stats().requests).toBe(before);
  });

  it('reports a 404 for an unknown finding clearly, journals it as failed, exit 1', async () => {
    const missing = '00000000-0000-4000-8000-000000000000';
    const result = await run(sim, dir, ['triage', missing, '--status', 'open']);
    expect(result.code).toBe(1);
    expect(result.err).toContain(
      `PATCH /api/v1/org/${sim.org}/ws/${sim.workspace}/airt/findings/${missing} failed with 404`,
    );
    expect(result.err).toContain('Check the organization, workspace');
    // One full stop after the service's sentence, and the hint says where finding ids come from.
    expect(result.err).toContain(
      `not_found_error: Finding '${missing}' not found in workspace '${sim.workspace}'. Check`,
    );
    expect(result.err).not.toContain('..');
    expect(result.err).toContain('a finding id is the attack_run_id of a finding in the warehouse');
    expect(result.err).toContain(
      'airt-report query "SELECT attack_run_id, attack_name, severity, finding_status FROM latest_findings"',
    );
    expect(result.err).not.toContain('project, assessment');
    expect(await readJournalLines(journalFile(dir))).toMatchObject([
      { outcome: 'failed', http_status: 404, finding: null },
    ]);
  });

  it('ends the service\'s sentence once in any 404 message (no "..")', () => {
    const target = { method: 'GET', path: '/api/v1/org/acme/ws/main/airt/projects/nope' };
    const sentence = new NotFoundError(
      target,
      { status: 404, type: 'not_found_error', detail: 'No such project.' },
      1,
    );
    expect(sentence.message).toBe(
      'GET /api/v1/org/acme/ws/main/airt/projects/nope failed with 404 not found: not_found_error: No such project. ' +
        'Check the organization, workspace and the project, assessment or finding id.',
    );
  });

  it('reports a 403 for a read-only token clearly, exit 1, and changes nothing', async () => {
    const id = finding(4);
    const before = await readFinding(sim, id);
    const result = await run(sim, dir, ['triage', id, '--status', 'remediated'], {
      token: 'read-only-token',
    });
    expect(result.code).toBe(1);
    expect(result.err).toContain('was refused with 403: the token is valid but lacks the rights');
    expect((await readFinding(sim, id)).review_events).toHaveLength(before.review_events.length);
  });

  it("shows a service 422's errors[] field by field (values only the service checks)", async () => {
    // Local validation makes a 422 impossible through the CLI; the library is given a change that
    // skipped it to show how the service's answer is presented.
    const client = createApiClient({ baseUrl: sim.url, token: sim.token });
    try {
      const request = { finding_status: 'closed', severity: 'urgent' } as unknown as UpdateFindingRequest;
      const error = await triageFinding({
        client,
        target: { org: sim.org, workspace: sim.workspace },
        change: { findingId: finding(5), request },
        journalPath: 'triage/journal.jsonl',
        cwd: dir,
      }).then(
        () => undefined,
        (e: unknown) => e as Error & { exitCode: number },
      );
      expect(error?.exitCode).toBe(1);
      expect(error?.message).toMatch(
        /was refused with 422 .*; nothing was changed\. The service rejected these fields:/u,
      );
      // The library names its options; the CLI prints the same lines with its flags.
      expect(error?.message).toMatch(
        /\n {2}finding_status \(options\.status\): .+\n {2}severity \(options\.severity\): /u,
      );
      expect(cliMessage(error!)).toMatch(
        /\n {2}finding_status \(--status\): .+\n {2}severity \(--severity\): /u,
      );
    } finally {
      await client.close();
    }
  });
});
