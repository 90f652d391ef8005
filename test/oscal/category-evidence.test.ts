/* eslint-disable @typescript-eslint/no-unsafe-member-access -- raw snapshot JSON is read untyped on purpose (the independent recomputation) */
/**
 * The observations an OSCAL finding (one framework category) relates to, recomputed from the raw
 * snapshot JSON in plain TypeScript: exactly the attack runs whose own `compliance_tags` name that
 * category (TAXONOMY.md "Compliance tags", the field map written out here), never every run of an
 * attack that some run tagged with it used, and still when the compliance matrix is in the older
 * format without `attacks_used`. The fixture: one simulator snapshot (127.0.0.1, port 0) loaded as
 * it is, and a copy whose matrix cells lost `attacks_used` and `total_trials` (resealed).
 */
import { cp, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { recordingIO } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { loadSnapshots } from '../../src/warehouse/loader.js';
import { analyzedRuns, type RawJson } from '../helpers/raw-summary-findings.js';
import { simulatorWorld } from '../helpers/simulator-snapshot.js';
import { makeTempDir } from '../helpers/temp-dirs.js';
import { reseal } from '../warehouse/helpers.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** TAXONOMY.md: the compliance_tags field of each framework of the matrix. */
const FIELD_OF: Record<string, string> = {
  owasp_llm: 'owasp_categories',
  owasp_agentic: 'owasp_agentic_categories',
  atlas: 'atlas_techniques',
  saif: 'saif_categories',
  nist: 'nist_ai_rmf_function',
};

let work: string;
let project: string;
let runs: RawJson[];

/** The runs whose own tags name `framework`/`tag`, by id, sorted. */
function taggedRuns(framework: string, tag: string): string[] {
  const field = FIELD_OF[framework];
  return runs
    .filter((run) => {
      const value: unknown = field === undefined ? undefined : run.compliance_tags?.[field];
      const tags: unknown[] = typeof value === 'string' ? [value] : Array.isArray(value) ? value : [];
      return tags.includes(tag);
    })
    .map((run) => String(run.id))
    .sort();
}

async function exportDoc(db: string, name: string): Promise<Json> {
  const io = recordingIO({ cwd: work });
  const out = path.join(work, name);
  const args = ['report', '--db', db, '--kind', 'compliance', '--project', project, '--format', 'oscal'];
  const code = await main([...args, '--out', out], io);
  expect([code, io.err.join('')]).toEqual([0, '']);
  return JSON.parse(await readFile(out, 'utf8')) as Json;
}

/** observation uuid → attack-run-id, from the document's own observations. */
function runOfObservation(result: Json): Map<string, string> {
  return new Map(
    (result.observations as Json[]).map((o) => [
      String(o.uuid),
      String((o.props as Json[]).find((p) => p.name === 'attack-run-id')?.value),
    ]),
  );
}

/** Each finding's framework/tag (from its title) and the runs of its related observations. */
function relatedRuns(result: Json): { framework: string; tag: string; runs: string[] }[] {
  const runOf = runOfObservation(result);
  return (result.findings as Json[]).map((finding) => {
    const [, framework = '', tag = ''] =
      /^(\S+) (.+): (?:failing|passing)$/u.exec(String(finding.title)) ?? [];
    const related = ((finding['related-observations'] ?? []) as Json[]).map(
      (ref) => runOf.get(String(ref['observation-uuid'])) ?? 'missing observation',
    );
    return { framework, tag, runs: related.sort() };
  });
}

let current: Json;
let legacy: Json;

beforeAll(async () => {
  work = await makeTempDir('airt-oscal-categories-');
  const world = await simulatorWorld(
    {
      seed: 3,
      projects: 1,
      scale: { assessmentsPerProject: 3, attacksPerAssessment: 8, trialsPerAttack: 3, evaluationJobs: 1 },
    },
    work,
    'snapshots',
  );
  project = world.projects[0] ?? '';
  const [projectDir = ''] = await readdir(path.join(world.snapshotDir, 'projects'));
  const summaryFile = (dir: string): string => path.join(dir, 'projects', projectDir, 'summary.json');
  const summary = JSON.parse(await readFile(summaryFile(world.snapshotDir), 'utf8')) as RawJson;
  runs = analyzedRuns(summary);

  const db = path.join(work, 'current.duckdb');
  await loadSnapshots(db, [world.snapshotDir]);
  current = (await exportDoc(db, 'current.json'))['assessment-results'].results[0] as Json;

  // The older compliance format: cells without attacks_used or total_trials.
  const legacyDir = path.join(work, 'legacy');
  await cp(world.snapshotDir, legacyDir, { recursive: true });
  for (const assessment of summary.assessments as RawJson[])
    for (const tags of Object.values((assessment.compliance_matrix ?? {}) as Record<string, RawJson>))
      for (const cell of Object.values(tags)) {
        delete cell.attacks_used;
        delete cell.total_trials;
      }
  await writeFile(summaryFile(legacyDir), `${JSON.stringify(summary, null, 2)}\n`);
  await reseal(legacyDir);
  const legacyDb = path.join(work, 'legacy.duckdb');
  await loadSnapshots(legacyDb, [legacyDir]);
  legacy = (await exportDoc(legacyDb, 'legacy.json'))['assessment-results'].results[0] as Json;
}, 120_000);

describe('OSCAL findings relate the observations of the runs tagged with their category', () => {
  it('exactly those runs, not every run of an attack the category lists', () => {
    const findings = relatedRuns(current);
    expect(findings.length).toBeGreaterThan(0);
    // The case that tells the two apart: a run of an attack the category lists, not tagged with it.
    const byAttackName = findings.some(({ framework, tag }) => {
      const tagged = new Set(taggedRuns(framework, tag));
      const attacks = new Set(runs.filter((r) => tagged.has(String(r.id))).map((r) => String(r.attack_name)));
      return runs.some((r) => attacks.has(String(r.attack_name)) && !tagged.has(String(r.id)));
    });
    expect(byAttackName).toBe(true);
    for (const { framework, tag, runs: related } of findings)
      expect([framework, tag, related]).toEqual([framework, tag, taggedRuns(framework, tag)]);
    // Every failing category cites some evidence.
    for (const finding of current.findings as Json[])
      if (String(finding.title).endsWith(': failing'))
        expect([finding.title, (finding['related-observations'] ?? []).length > 0]).toEqual([
          finding.title,
          true,
        ]);
  });

  it('also when the compliance matrix is in the older format (no attacks_used)', () => {
    const findings = relatedRuns(legacy);
    expect(findings.some(({ runs: related }) => related.length > 0)).toBe(true);
    for (const { framework, tag, runs: related } of findings)
      expect([framework, tag, related]).toEqual([framework, tag, taggedRuns(framework, tag)]);
  });
});
