/**
 * `report --format oscal`: an OSCAL 1.1.2 assessment-results document from real simulator data,
 * checked against the required structure and types of NIST's model (the reduced JSON Schema in
 * schemas/oscal/), with every internal reference resolving, evidence hashes equal to the snapshot's
 * files on disk, deterministic v5 UUIDs and the same bytes on a second export.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { Ajv } from 'ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordingIO } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { OSCAL_VERSION } from '../../src/oscal/assessment-results.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { takeSnapshot } from '../../src/snapshot/take-snapshot.js';
import { loadSnapshots } from '../../src/warehouse/loader.js';
import { makeTempDir } from '../helpers/temp-dirs.js';

const SCHEMA = path.resolve(
  import.meta.dirname,
  '../../schemas/oscal/assessment-results-1.1.2.reduced.schema.json',
);

interface Prop {
  name: string;
  value: string;
}
interface Resource {
  uuid: string;
  rlinks?: { href: string; hashes: { algorithm: string; value: string }[] }[];
}
interface Observation {
  uuid: string;
  methods: string[];
  props: Prop[];
  'relevant-evidence': { href: string; description: string }[];
}
interface OscalFinding {
  target: { 'target-id': string };
  'related-observations'?: { 'observation-uuid': string }[];
  'related-risks'?: { 'risk-uuid': string }[];
}
interface OscalRisk {
  uuid: string;
  status: string;
  deadline?: string;
  props: Prop[];
  remediations?: { title: string; description: string; props: Prop[] }[];
  'related-observations': { 'observation-uuid': string }[];
}
interface Result {
  start?: string;
  'reviewed-controls': { 'control-selections': { 'include-controls'?: { 'control-id': string }[] }[] };
  observations: Observation[];
  risks?: OscalRisk[];
  findings: OscalFinding[];
}
/** The parts of an assessment-results document the tests read. */
interface AssessmentResults {
  'assessment-results': {
    uuid: string;
    metadata: { 'oscal-version': string };
    'import-ap': { href: string };
    results: Result[];
    'back-matter': { resources: Resource[] };
  };
}

let sim: RunningSimulator;
let work: string;
let db: string;
let snapshotDir: string;
let project: string;

beforeAll(async () => {
  sim = await startSimulator({
    projects: 1,
    scale: { assessmentsPerProject: 3, attacksPerAssessment: 4, trialsPerAttack: 4, evaluationJobs: 2 },
  });
  work = await makeTempDir('airt-oscal-');
  db = path.join(work, 'airt.duckdb');
  const snapshot = await takeSnapshot(
    {
      baseUrl: sim.url,
      org: sim.org,
      workspace: sim.workspace,
      token: sim.token,
      out: path.join(work, 'snapshots'),
    },
    { now: () => new Date('2026-02-01T00:00:00Z') },
  );
  snapshotDir = snapshot.dir;
  await loadSnapshots(db, [snapshot.dir]);
  project = sim.projectKeys[0] ?? '';
});

afterAll(async () => {
  await sim?.close();
});

async function exportOscal(out: string): Promise<{ code: number; doc: AssessmentResults; text: string }> {
  const io = recordingIO({ cwd: work });
  const code = await main(
    ['report', '--db', db, '--kind', 'compliance', '--project', project, '--format', 'oscal', '--out', out],
    io,
  );
  const text = await readFile(out, 'utf8');
  return { code, doc: JSON.parse(text) as AssessmentResults, text };
}

describe('OSCAL assessment results', () => {
  it('follows the OSCAL 1.1.2 assessment-results model, with resolving references and real evidence hashes', async () => {
    const { code, doc, text } = await exportOscal(path.join(work, 'ar.json'));
    expect(code).toBe(0);
    const ajv = new Ajv({ allErrors: true, strict: false });
    const validate = ajv.compile(JSON.parse(await readFile(SCHEMA, 'utf8')) as object);
    const valid = validate(doc);
    expect(validate.errors ?? []).toEqual([]);
    expect(valid).toBe(true);

    const ar = doc['assessment-results'];
    expect(ar.metadata['oscal-version']).toBe(OSCAL_VERSION);
    expect(OSCAL_VERSION).toBe('1.1.2');
    const result = ar.results[0]!;
    const observations = new Set(result.observations.map((o) => o.uuid));
    const risks = new Set((result.risks ?? []).map((r) => r.uuid));
    const resources = new Map(ar['back-matter'].resources.map((r) => [r.uuid, r]));
    expect(observations.size).toBeGreaterThan(0);
    expect(result.findings.length).toBeGreaterThan(0);
    // Every reference points at something in the document.
    for (const finding of result.findings) {
      for (const ref of finding['related-observations'] ?? [])
        expect(observations.has(ref['observation-uuid'])).toBe(true);
      for (const ref of finding['related-risks'] ?? []) expect(risks.has(ref['risk-uuid'])).toBe(true);
      expect(result['reviewed-controls']['control-selections'][0]?.['include-controls']).toContainEqual({
        'control-id': finding.target['target-id'],
      });
    }
    for (const risk of result.risks ?? []) {
      for (const ref of risk['related-observations'])
        expect(observations.has(ref['observation-uuid'])).toBe(true);
    }
    expect(resources.has(ar['import-ap'].href.slice(1))).toBe(true);
    // Evidence: trial references, and the sha256 of the snapshot file they come from, as on disk.
    let checkedFiles = 0;
    for (const observation of result.observations) {
      expect(observation.methods).toEqual(['TEST']);
      expect(observation.props.some((p) => p.name === 'trial')).toBe(true);
      for (const evidence of observation['relevant-evidence']) {
        const resource = resources.get(evidence.href.slice(1));
        expect(resource).toBeDefined();
        const link = resource?.rlinks?.[0];
        const onDisk = createHash('sha256')
          .update(await readFile(path.join(snapshotDir, link?.href ?? 'missing')))
          .digest('hex');
        expect(link?.hashes[0]).toEqual({ algorithm: 'SHA-256', value: onDisk });
        checkedFiles += 1;
      }
    }
    expect(checkedFiles).toBeGreaterThan(0);
    // Deterministic version-5 UUIDs: a second export is byte-identical.
    expect(ar.uuid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/u);
    expect((await exportOscal(path.join(work, 'ar-again.json'))).text).toBe(text);
  });

  it('the schema catches a document missing what the model requires', async () => {
    const { doc } = await exportOscal(path.join(work, 'ar-broken.json'));
    const ajv = new Ajv({ allErrors: true, strict: false });
    const validate = ajv.compile(JSON.parse(await readFile(SCHEMA, 'utf8')) as object);
    const broken = structuredClone(doc);
    const result = broken['assessment-results'].results[0]!;
    delete result.start;
    result.observations[0]!.methods = ['GUESS'];
    expect(validate(broken)).toBe(false);
    expect((validate.errors ?? []).map((e) => e.message)).toEqual(
      expect.arrayContaining([
        "must have required property 'start'",
        'must be equal to one of the allowed values',
      ]),
    );
  });

  it('--format oscal with --kind portfolio is a usage error', async () => {
    const io = recordingIO({ cwd: work });
    expect(
      await main(
        [
          'report',
          '--db',
          db,
          '--kind',
          'portfolio',
          '--format',
          'oscal',
          '--out',
          path.join(work, 'x.json'),
        ],
        io,
      ),
    ).toBe(2);
  });

  it('resolves the project as the reports do: an unknown one is the same usage error, naming the known ones', async () => {
    const run = async (format: string) => {
      const io = recordingIO({ cwd: work });
      const out = path.join(work, `unknown.${format}`);
      const args = ['report', '--db', db, '--kind', 'compliance', '--project', 'no-such-project'];
      const code = await main([...args, '--format', format, '--out', out], io);
      return { code, err: io.err.join('') };
    };
    const [oscal, md] = [await run('oscal'), await run('md')];
    expect(oscal.code).toBe(2);
    expect(oscal).toEqual(md);
    expect(oscal.err).toContain('Projects with a summary:');
  });
});
