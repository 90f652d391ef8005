/**
 * Risk acceptance that expires. Over three simulated days against the simulator: day 0 every open
 * critical finding is accepted (one with `triage --status accepted_risk --until --reason`, the rest
 * from a decisions file) until the last day of day 1. Day 1's run carries the acceptances from the
 * journal into the snapshot and the warehouse: the findings are not open, the gate
 * `open_critical_findings <= 0` holds and the gate report lists the acceptances as ending within 30
 * days. On day 2 the acceptance has expired: the same findings are open again in the report, the
 * gate trips (exit 4, a JUnit failure naming them) and the diff shows them reopened. The service only
 * ever received the status (and no dates). The runs also sign their bundles (bundle.sign_key).
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parse, type TestSuites } from 'junit2json';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordingIO } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { queryRows } from '../../src/diff/warehouse-source.js';
import type { GateReport } from '../../src/pipeline/gate-report.js';
import { runConfigFromObject } from '../../src/pipeline/run-config.js';
import { runPipeline } from '../../src/pipeline/run-pipeline.js';
import { verifyBundle } from '../../src/pipeline/verify-bundle.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { openWarehouse } from '../../src/warehouse/db.js';
import { makeTempDir } from '../helpers/temp-dirs.js';

const SCALE = { assessmentsPerProject: 3, attacksPerAssessment: 3, trialsPerAttack: 3, evaluationJobs: 1 };
const DAY = (n: number): Date => new Date(Date.UTC(2026, 2, 1 + n, 2, 0, 0));
const UNTIL = '2026-03-02'; // the last day of day 1: over by day 2's run

let sim: RunningSimulator;
let dir: string;
let db: string;
let journal: string;
let criticals: string[];

beforeAll(async () => {
  sim = await startSimulator({ projects: 1, scale: SCALE });
  dir = await makeTempDir('airt-accept-');
  db = path.join(dir, 'airt.duckdb');
  journal = path.join(dir, 'triage', 'journal.jsonl');
  // Nothing triaged yet: an empty journal.
  await mkdir(path.dirname(journal));
  await writeFile(journal, '');
});

afterAll(async () => {
  await sim?.close();
});

function config(): ReturnType<typeof runConfigFromObject> {
  const signKey = path.join(dir, 'signing-key');
  const canSign = existsSync('/usr/bin/ssh-keygen');
  if (canSign && !existsSync(signKey))
    execFileSync('/usr/bin/ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', signKey]);
  return runConfigFromObject(
    {
      connection: { base_url: sim.url, org: sim.org, workspace: sim.workspace },
      snapshot: { triage_journal: 'triage/journal.jsonl' },
      reports: [{ kind: 'executive', formats: ['md'] }],
      gates: ['open_critical_findings <= 0'],
      bundle: canSign ? { sign_key: 'signing-key' } : {},
    },
    dir,
  );
}

async function run(day: number) {
  return runPipeline(config(), {
    stderr: () => undefined,
    env: { AIRT_TOKEN: sim.token },
    now: () => DAY(day),
  });
}

async function openCriticals(snapshotId: string): Promise<string[]> {
  const warehouse = await openWarehouse(db, { readOnly: true });
  try {
    const rows = await queryRows(
      warehouse.conn,
      `SELECT attack_run_id FROM metric_findings
       WHERE snapshot_id = $1 AND counted AND is_open AND severity = 'critical' ORDER BY 1`,
      [snapshotId],
    );
    return rows.map((row) => String(row.attack_run_id));
  } finally {
    warehouse.close();
  }
}

interface AcceptanceJson {
  attack_run_id: string;
  state: string;
  accepted_by: string | null;
  reason: string | null;
  accepted_until: string;
  days_left: number;
}

interface ReportJson {
  figures: Record<string, { value: number | null }>;
  risk_acceptances?: { window_days: number; rows: AcceptanceJson[] };
}

async function reportFigures(snapshotId: string): Promise<Record<string, { value: number | null }>> {
  return (await reportJson(snapshotId)).figures;
}

/** `@expiring_acceptances` over the database (each project's newest snapshot), as JSON rows. */
async function namedAcceptances(): Promise<AcceptanceJson[]> {
  const io = recordingIO({ cwd: dir });
  const code = await main(['query', '@expiring_acceptances', '--db', db, '--format', 'json'], io);
  expect(code, io.err.join('')).toBe(0);
  return JSON.parse(io.out.join('')) as AcceptanceJson[];
}

const acceptanceFields = (row: AcceptanceJson) => ({
  attack_run_id: row.attack_run_id,
  state: row.state,
  accepted_by: row.accepted_by,
  reason: row.reason,
  accepted_until: row.accepted_until,
  days_left: Number(row.days_left),
});

async function reportJson(snapshotId: string): Promise<ReportJson> {
  const out = path.join(dir, `figures-${snapshotId}.json`);
  const io = recordingIO({ cwd: dir });
  const project = sim.projectKeys[0] ?? '';
  const code = await main(
    [
      'report',
      '--db',
      db,
      '--kind',
      'executive',
      '--project',
      project,
      '--snapshot',
      snapshotId,
      '--format',
      'json',
      '--out',
      out,
    ],
    io,
  );
  expect(code, io.err.join('')).toBe(0);
  return JSON.parse(await readFile(out, 'utf8')) as ReportJson;
}

/** The OSCAL risks of the project in `snapshotId`, by the attack run they are about. */
async function oscalRisks(
  snapshotId: string,
): Promise<Map<string, { status: string; deadline?: string; remediations?: { title: string }[] }>> {
  const out = path.join(dir, `oscal-${snapshotId}.json`);
  const io = recordingIO({ cwd: dir });
  const args = [
    'report',
    '--db',
    db,
    '--kind',
    'compliance',
    '--project',
    sim.projectKeys[0] ?? '',
    '--snapshot',
    snapshotId,
  ];
  expect(await main([...args, '--format', 'oscal', '--out', out], io), io.err.join('')).toBe(0);
  const doc = JSON.parse(await readFile(out, 'utf8')) as {
    'assessment-results': {
      results: {
        risks?: {
          status: string;
          deadline?: string;
          props: { name: string; value: string }[];
          remediations?: { title: string }[];
        }[];
      }[];
    };
  };
  const risks = doc['assessment-results'].results[0]?.risks ?? [];
  return new Map(risks.map((r) => [r.props.find((p) => p.name === 'attack-run-id')?.value ?? '', r]));
}

describe('a risk acceptance that expires between two days', () => {
  it('holds on day 1 and turns the findings open again on day 2 in report, gate, JUnit and diff', async () => {
    const errors: string[] = [];
    const day0 = await runPipeline(config(), {
      stderr: (t: string) => void errors.push(t),
      env: { AIRT_TOKEN: sim.token },
      now: () => DAY(0),
    });
    expect(day0.exitCode, errors.join('')).toBe(4);
    const day0Id = day0.summary.snapshot.id ?? '';
    criticals = await openCriticals(day0Id);
    expect(criticals.length).toBeGreaterThan(0);
    const openBefore = (await reportFigures(day0Id)).findings_open?.value ?? 0;

    // Accept them: the first on the command line, the rest from a decisions file.
    const env = {
      AIRT_BASE_URL: sim.url,
      AIRT_ORG: sim.org,
      AIRT_WORKSPACE: sim.workspace,
      AIRT_TOKEN: sim.token,
    };
    const [first = '', ...rest] = criticals;
    const single = recordingIO({ cwd: dir, env });
    const singleCode = await main(
      [
        'triage',
        first,
        '--status',
        'accepted_risk',
        '--until',
        UNTIL,
        '--reason',
        'output filter in front; re-test after the fix',
        '--owner',
        'ciso@example.com',
        '--journal',
        journal,
      ],
      single,
    );
    expect(singleCode, single.err.join('')).toBe(0);
    if (rest.length > 0) {
      const csv = path.join(dir, 'accept.csv');
      await writeFile(
        csv,
        [
          'finding_id,finding_status,accepted_until,acceptance_reason,accepted_by',
          ...rest.map(
            (id) => `${id},accepted_risk,${UNTIL},"vendor fix due, tracked in RISK-7",ciso@example.com`,
          ),
        ].join('\n'),
      );
      const bulk = recordingIO({ cwd: dir, env });
      expect(await main(['triage', 'apply', csv, '--journal', journal], bulk), bulk.err.join('')).toBe(0);
    }
    // The journal has the dates; the service got the status only.
    const lines = (await readFile(journal, 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { outcome: string; request: unknown; acceptance?: unknown });
    const applied = lines.filter((l) => l.outcome === 'applied');
    expect(applied).toHaveLength(criticals.length);
    for (const line of applied) {
      expect(line.request).toEqual({ finding_status: 'accepted_risk' });
      expect(line.acceptance).toMatchObject({ owner: 'ciso@example.com', until: UNTIL });
    }

    // Day 1: the acceptances hold.
    const day1 = await run(1);
    expect(day1.exitCode).toBe(0);
    const day1Id = day1.summary.snapshot.id ?? '';
    const manifest = JSON.parse(
      await readFile(path.join(day1.summary.snapshot.dir ?? '', 'manifest.json'), 'utf8'),
    ) as {
      files: { path: string; kind: string }[];
    };
    expect(manifest.files).toContainEqual(
      expect.objectContaining({ path: 'triage/acceptances.json', kind: 'risk_acceptances' }),
    );
    expect(await openCriticals(day1Id)).toEqual([]);
    const openDay1 = (await reportFigures(day1Id)).findings_open?.value ?? 0;
    expect(openDay1).toBe(openBefore - criticals.length);
    const gates1 = JSON.parse(
      await readFile(day1.summary.paths.gate_report_json ?? '', 'utf8'),
    ) as GateReport;
    expect(gates1.tripped).toBe(false);
    expect(gates1.expiring_acceptances?.map((a) => a.attack_run_id).sort()).toEqual(criticals);
    expect(gates1.expiring_acceptances?.[0]).toMatchObject({
      accepted_until: UNTIL,
      accepted_by: 'ciso@example.com',
      days_left: 0,
    });
    expect(await readFile(day1.summary.paths.gate_report_md ?? '', 'utf8')).toContain(
      'Risk acceptances expiring within 30 days',
    );
    // Markdown escapes punctuation: compared without the backslashes.
    const report1 = (await readFile(day1.summary.paths.reports[0] ?? '', 'utf8')).replace(/\\/gu, '');
    expect(report1).toContain(`accepted_risk until ${UNTIL}`);
    // The executive report's own section lists them (finding, owner, reason, last day, days left) …
    const section1 = report1.slice(report1.indexOf('## Risk acceptances to review'));
    expect(section1).toContain('within 30 days');
    for (const id of criticals) {
      expect(section1).toMatch(new RegExp(`${id}.*ciso@example.com.*${UNTIL} \\| 0 \\|`, 'u'));
    }
    expect(section1).toContain('vendor fix due, tracked in RISK-7');
    // … so does the JSON report, and the named query returns the same rows.
    const json1 = await reportJson(day1Id);
    expect(json1.risk_acceptances?.window_days).toBe(30);
    expect(json1.risk_acceptances?.rows.map((row) => row.attack_run_id).sort()).toEqual(criticals);
    expect(json1.risk_acceptances?.rows.every((row) => row.state === 'expiring' && row.days_left === 0)).toBe(
      true,
    );
    expect((await namedAcceptances()).map(acceptanceFields)).toEqual(
      json1.risk_acceptances?.rows.map(acceptanceFields),
    );

    // OSCAL: the accepted risk is a deviation-approved risk with a completed response and a deadline.
    const risks1 = await oscalRisks(day1Id);
    for (const id of criticals) {
      expect(risks1.get(id)).toMatchObject({
        status: 'deviation-approved',
        deadline: '2026-03-03T00:00:00.000Z',
      });
      expect(risks1.get(id)?.remediations?.[0]?.title).toBe('Risk accepted');
    }

    // Day 2: expired, open again.
    const day2 = await run(2);
    expect(day2.exitCode).toBe(4);
    const day2Id = day2.summary.snapshot.id ?? '';
    expect(await openCriticals(day2Id)).toEqual(criticals);
    expect((await reportFigures(day2Id)).findings_open?.value).toBe(openBefore);
    const gates2 = JSON.parse(
      await readFile(day2.summary.paths.gate_report_json ?? '', 'utf8'),
    ) as GateReport;
    expect(gates2.tripped).toBe(true);
    expect(gates2.results[0]?.tripping_rows.map((r) => r.fields.attack_run_id).sort()).toEqual(criticals);
    const junit = (await parse(
      await readFile(day2.summary.paths.gate_report_junit ?? '', 'utf8'),
    )) as TestSuites;
    const failure = junit.testsuite?.[0]?.testcase?.[0]?.failure?.[0];
    expect(failure?.message).toContain(`value ${criticals.length}, threshold <= 0 does not hold`);
    for (const id of criticals) expect(failure?.inner).toContain(id);
    const risks2 = await oscalRisks(day2Id);
    for (const id of criticals) {
      expect(risks2.get(id)).toMatchObject({ status: 'open' });
      expect(risks2.get(id)?.remediations?.[0]?.title).toBe('Risk acceptance expired');
    }
    const report2 = (await readFile(day2.summary.paths.reports[0] ?? '', 'utf8')).replace(/\\/gu, '');
    expect(report2).toContain(`open (acceptance ended ${UNTIL})`);
    expect(report2).not.toContain(`accepted_risk until ${UNTIL}`);
    // Day 2: the section lists them as ended, open again; the JSON and the named query agree.
    const section2 = report2.slice(report2.indexOf('## Risk acceptances to review'));
    for (const id of criticals) expect(section2).toMatch(new RegExp(`${id}.*0 \\(ended; open again\\)`, 'u'));
    const json2 = await reportJson(day2Id);
    expect(json2.risk_acceptances?.rows.map((row) => [row.attack_run_id, row.state, row.days_left])).toEqual(
      [...criticals].sort().map((id) => [id, 'expired', -1]),
    );
    expect((await namedAcceptances()).map(acceptanceFields)).toEqual(
      json2.risk_acceptances?.rows.map(acceptanceFields),
    );
    const diff = await readFile(
      path.join(path.dirname(day2.summary.paths.gate_report_json ?? ''), 'diff.json'),
      'utf8',
    );
    for (const id of criticals) expect(diff).toContain(id);

    // The signed bundles verify; the run config's sign_key was used.
    if (existsSync('/usr/bin/ssh-keygen')) {
      const verified = await verifyBundle(day2.summary.paths.bundle ?? '');
      expect(verified.problems).toEqual([]);
      expect(verified.signature.status).toBe('not_checked');
      expect(existsSync(`${day2.summary.paths.bundle ?? ''}.sig`)).toBe(true);
    }
  }, 180_000);
});
