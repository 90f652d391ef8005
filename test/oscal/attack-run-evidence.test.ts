/* eslint-disable @typescript-eslint/no-unsafe-member-access -- raw snapshot JSON is read untyped on purpose (the independent recomputation) */
/**
 * `report --format oscal` against the raw snapshot JSON it is made from, recomputed here in plain
 * TypeScript (never the warehouse's SQL): each observation cites its own attack run's trials (an
 * assessment that runs one attack against several goals has one run, and one set of trials, per goal);
 * it is worded by the run's outcome (reached its goal, did not, unknown without a score) and only a
 * successful run whose finding is open is a risk; `--framework` keeps the document to that framework
 * and refuses an unknown one as the Markdown report does; a category is spelled one way throughout.
 * The fixture: one simulator snapshot (127.0.0.1, port 0) with several runs of an attack per
 * assessment, one run's best_score set to null (no finished trial) and the manifest resealed.
 */
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { Ajv } from 'ajv';
import { beforeAll, describe, expect, it } from 'vitest';
import { recordingIO } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { loadSnapshots } from '../../src/warehouse/loader.js';
import { analyzedRuns, type RawJson } from '../helpers/raw-summary-findings.js';
import { simulatorWorld } from '../helpers/simulator-snapshot.js';
import { makeTempDir } from '../helpers/temp-dirs.js';
import { reseal } from '../warehouse/helpers.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const SCHEMA = path.resolve(
  import.meta.dirname,
  '../../schemas/oscal/assessment-results-1.1.2.reduced.schema.json',
);
/** TAXONOMY.md: an attack succeeds when its best score is at least 0.5. */
const SUCCESS = 0.5;
/** TAXONOMY/README: triage statuses that close a finding. */
const CLOSED = ['false_positive', 'remediated'];
/** The trial references an observation lists (the rest are counted). */
const LISTED = 20;

interface Prop {
  name: string;
  value: string;
}

let work: string;
let db: string;
let project: string;
let doc: Json;
/** From the raw JSON: every finding (analyzed attack run) by id. */
let runs: Map<string, RawJson>;
/** From the raw JSON: the trial references of each run, in file order. */
let trialsOf: Map<string, string[]>;
/** From the raw JSON: whether each run's finding is open (its triage in findings/). */
let openOf: Map<string, boolean>;

const propOf = (props: Prop[], name: string): string | undefined => props.find((p) => p.name === name)?.value;
const propsOf = (props: Prop[], name: string): string[] =>
  props.filter((p) => p.name === name).map((p) => p.value);

async function exportDoc(
  out: string,
  extra: string[] = [],
  format = 'oscal',
): Promise<{ code: number; err: string; doc: Json | null }> {
  const io = recordingIO({ cwd: work });
  const args = ['report', '--db', db, '--kind', 'compliance', '--project', project];
  const code = await main([...args, ...extra, '--format', format, '--out', out], io);
  const text = format === 'oscal' && code === 0 ? await readFile(out, 'utf8') : null;
  return { code, err: io.err.join(''), doc: text === null ? null : (JSON.parse(text) as Json) };
}

beforeAll(async () => {
  work = await makeTempDir('airt-oscal-runs-');
  const world = await simulatorWorld(
    {
      seed: 1,
      projects: 1,
      scale: { assessmentsPerProject: 3, attacksPerAssessment: 8, trialsPerAttack: 4, evaluationJobs: 2 },
    },
    work,
    'snapshots',
  );
  const dir = world.snapshotDir;
  project = world.projects[0] ?? '';
  // One unsuccessful run loses its score (sent as null: no trial finished), resealed.
  const [projectDir] = await readdir(path.join(dir, 'projects'));
  const summaryFile = path.join(dir, 'projects', projectDir ?? '', 'summary.json');
  const summary = JSON.parse(await readFile(summaryFile, 'utf8')) as RawJson;
  const unscored = analyzedRuns(summary).find(
    (run) => typeof run.best_score === 'number' && run.best_score < SUCCESS,
  );
  if (unscored === undefined) throw new Error('no unsuccessful run to unscore');
  unscored.best_score = null;
  await writeFile(summaryFile, `${JSON.stringify(summary, null, 2)}\n`);
  await reseal(dir);
  db = path.join(work, 'airt.duckdb');
  await loadSnapshots(db, [dir]);

  runs = new Map(analyzedRuns(summary).map((run) => [String(run.id), run]));
  trialsOf = new Map();
  for (const run of runs.values()) {
    const file = path.join(dir, 'trials', `${String(run.assessment_id)}.json`);
    const trials = existsSync(file) ? (JSON.parse(await readFile(file, 'utf8')) as RawJson[]) : [];
    trialsOf.set(
      String(run.id),
      trials
        .filter((t) => t.attack_name === run.attack_name && (t.goal ?? '') === (run.goal ?? ''))
        .map((t, i) =>
          typeof t.span_id === 'string' ? t.span_id : `trial_index=${String(t.trial_index ?? i)}`,
        ),
    );
  }
  // Triage as the snapshot holds it; no dated acceptance (those would take a finding off the open list).
  expect(existsSync(path.join(dir, 'triage', 'acceptances.json'))).toBe(false);
  const status = new Map<string, string>();
  const findingsDir = path.join(dir, 'findings');
  for (const name of existsSync(findingsDir) ? await readdir(findingsDir) : []) {
    const finding = JSON.parse(await readFile(path.join(findingsDir, name), 'utf8')) as RawJson;
    status.set(String(finding.id), String(finding.finding_status));
  }
  openOf = new Map([...runs.keys()].map((id) => [id, !CLOSED.includes(status.get(id) ?? 'open')]));

  const exported = await exportDoc(path.join(work, 'ar.json'));
  expect([exported.code, exported.err]).toEqual([0, '']);
  doc = exported.doc ?? {};
}, 120_000);

const resultOf = (document: Json): Json => document['assessment-results'].results[0] as Json;

describe('OSCAL observations against the raw snapshot', () => {
  it('cite each attack run its own trials, also when an assessment runs the same attack for several goals', () => {
    // The case the fixture must hold: one attack run more than once in one assessment, different goals.
    const byAttack = new Map<string, Set<string>>();
    for (const run of runs.values()) {
      const key = `${String(run.assessment_id)} ${String(run.attack_name)}`;
      byAttack.set(key, (byAttack.get(key) ?? new Set()).add(String(run.goal)));
    }
    expect([...byAttack.values()].some((goals) => goals.size > 1)).toBe(true);

    const observations = resultOf(doc).observations as Json[];
    expect(observations.map((o) => propOf(o.props as Prop[], 'attack-run-id')).sort()).toEqual(
      [...runs.keys()].sort(),
    );
    for (const observation of observations) {
      const id = propOf(observation.props as Prop[], 'attack-run-id') ?? '';
      const expected = trialsOf.get(id) ?? [];
      expect([id, propsOf(observation.props as Prop[], 'trial')]).toEqual([id, expected.slice(0, LISTED)]);
      const counted =
        expected.length === 0
          ? 'no trial spans in the snapshot'
          : `${expected.length} trial spans of this attack run${expected.length > LISTED ? ` (first ${LISTED} listed)` : ''}.`;
      expect([id, observation.description]).toEqual([id, expect.stringContaining(counted)]);
    }
  });

  it('are worded by outcome; only a successful run whose finding is open is a risk', () => {
    const outcome = (run: RawJson): string =>
      typeof run.best_score !== 'number'
        ? 'unknown'
        : run.best_score >= SUCCESS
          ? 'successful'
          : 'not-successful';
    const outcomes = [...runs.values()].map(outcome);
    // All three outcomes are in the fixture.
    expect(new Set(outcomes)).toEqual(new Set(['successful', 'not-successful', 'unknown']));

    const result = resultOf(doc);
    for (const observation of result.observations as Json[]) {
      const props = observation.props as Prop[];
      const id = propOf(props, 'attack-run-id') ?? '';
      const run = runs.get(id) ?? {};
      const text = String(observation.description);
      expect([id, propOf(props, 'outcome')]).toEqual([id, outcome(run)]);
      if (outcome(run) === 'successful') {
        expect(text).toContain(`reached goal `);
        expect(text).toContain(
          `best judge score ${String(run.best_score)}, at least the success threshold 0.5`,
        );
      } else if (outcome(run) === 'not-successful') {
        expect(text).not.toContain('reached goal');
        expect(text).toContain(
          `did not reach it: best judge score ${String(run.best_score)}, below the success threshold 0.5`,
        );
      } else {
        expect(text).not.toContain('reached goal');
        expect(text).toContain(
          'whether it reached it is unknown: no best judge score (no trial of the attack run finished)',
        );
      }
    }
    const risks = (result.risks ?? []) as Json[];
    const expected = [...runs.values()]
      .filter((run) => outcome(run) === 'successful' && openOf.get(String(run.id)) === true)
      .map((run) => String(run.id))
      .sort();
    expect(expected.length).toBeGreaterThan(0);
    expect(expected.length).toBeLessThan(runs.size);
    expect(risks.map((r) => propOf(r.props as Prop[], 'attack-run-id')).sort()).toEqual(expected);
    for (const risk of risks) expect(risk.status).toBe('open');
    // Every finding's related risks are risks of the document.
    const riskIds = new Set(risks.map((r) => r.uuid as string));
    for (const finding of result.findings as Json[])
      for (const ref of (finding['related-risks'] ?? []) as Json[])
        expect(riskIds.has(ref['risk-uuid'] as string)).toBe(true);
  });
});

describe('OSCAL --framework', () => {
  it('keeps the document to that framework (findings, controls, remarks), still valid', async () => {
    const full = resultOf(doc);
    const targets = (full.findings as Json[]).map((f) => String(f.target['target-id']));
    // The unfiltered document holds several frameworks.
    expect(new Set(targets.map((t) => t.split('.')[0])).size).toBeGreaterThan(1);
    const owasp = targets.filter((t) => t.startsWith('owasp_llm.'));
    expect(owasp.length).toBeGreaterThan(0);

    const { code, doc: filtered } = await exportDoc(path.join(work, 'owasp.json'), [
      '--framework',
      'owasp_llm',
    ]);
    expect(code).toBe(0);
    const validate = new Ajv({ allErrors: true, strict: false }).compile(
      JSON.parse(await readFile(SCHEMA, 'utf8')) as object,
    );
    expect([validate(filtered), validate.errors ?? []]).toEqual([true, []]);
    const result = resultOf(filtered ?? {});
    expect((result.findings as Json[]).map((f) => String(f.target['target-id']))).toEqual(owasp);
    const controls = (result['reviewed-controls']['control-selections'][0]['include-controls'] ??
      []) as Json[];
    expect(controls.map((c) => String(c['control-id']))).toEqual(owasp);
    for (const item of String(result.remarks ?? '').matchAll(
      /(\w+)\.[\w.:-]+ \((?:not_tested|insufficient_evidence)\)/gu,
    ))
      expect(item[1]).toBe('owasp_llm');
    // Observations: the runs tagged with an owasp_llm category (TAXONOMY: compliance_tags.owasp_categories).
    const tagged = [...runs.values()]
      .filter((run) => (run.compliance_tags?.owasp_categories ?? []).length > 0)
      .map((run) => String(run.id))
      .sort();
    expect(tagged.length).toBeGreaterThan(0);
    expect(
      (result.observations as Json[]).map((o) => propOf(o.props as Prop[], 'attack-run-id')).sort(),
    ).toEqual(tagged);
    // Observations and risks: a subset of the full document's, every reference resolving.
    const observations = new Set((result.observations as Json[]).map((o) => o.uuid as string));
    const fullObservations = new Set((full.observations as Json[]).map((o) => o.uuid as string));
    for (const uuid of observations) expect(fullObservations.has(uuid)).toBe(true);
    for (const finding of result.findings as Json[])
      for (const ref of (finding['related-observations'] ?? []) as Json[])
        expect(observations.has(ref['observation-uuid'] as string)).toBe(true);
    for (const risk of (result.risks ?? []) as Json[])
      for (const ref of risk['related-observations'] as Json[])
        expect(observations.has(ref['observation-uuid'] as string)).toBe(true);
  });

  it('refuses an unknown framework as the Markdown report does (usage error, same message)', async () => {
    const oscal = await exportDoc(path.join(work, 'bogus.json'), ['--framework', 'bogus']);
    const md = await exportDoc(path.join(work, 'bogus-md'), ['--framework', 'bogus'], 'md');
    expect(oscal.code).toBe(2);
    expect(oscal.err).toContain('Unknown compliance framework "bogus"');
    expect(oscal.err).toBe(md.err);
    expect(existsSync(path.join(work, 'bogus.json'))).toBe(false);
  });
});

describe('OSCAL category names', () => {
  it('spells a category one way: the remarks use the control-id spelling of target-id', () => {
    const result = resultOf(doc);
    const remarks = String(result.remarks ?? '');
    const named = [...remarks.matchAll(/([\p{L}\p{N}._:-]+) \((?:not_tested|insufficient_evidence)\)/gu)].map(
      (m) => m[1] ?? '',
    );
    // The raw matrix's undecided owasp_llm tags (e.g. LLM08:2025) are among them.
    expect(named.some((n) => n.startsWith('owasp_llm.'))).toBe(true);
    const token = /^[\p{L}_][\p{L}\p{N}._-]*$/u;
    for (const name of named) expect([name, token.test(name)]).toEqual([name, true]);
    for (const finding of result.findings as Json[])
      expect(String(finding.target['target-id'])).toMatch(token);
    expect(remarks).not.toMatch(/LLM\d\d:2025/u);
  });
});
