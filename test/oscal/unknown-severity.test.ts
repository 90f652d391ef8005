/* eslint-disable @typescript-eslint/no-unsafe-member-access -- raw snapshot JSON is read untyped on purpose (the independent recomputation) */
/**
 * `report --format oscal` of a project whose attack runs partly lack the required `best_score`: the
 * severity of those findings is unknown, and the document says `unknown` (as it does for a root hash it
 * does not know) with the reason, never the string "null" and never a severity of its own making. The
 * fixture: two simulator snapshots (127.0.0.1, port 0), the second's summary of one project with
 * best_score renamed on its attack runs below critical, resealed; the known and unknown findings are
 * recomputed here from that raw JSON. The document is still valid against the reduced OSCAL schema. An
 * unscored run's outcome is unknown: it is no risk, of unknown severity or any other.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { Ajv } from 'ajv';
import { beforeAll, describe, expect, it } from 'vitest';
import { exportOscal } from '../../src/oscal/export-oscal.js';
import { loadSnapshots } from '../../src/warehouse/loader.js';
import { restoreBestScores } from '../helpers/partly-unscored-summary.js';
import { analyzedRuns, readRawSummary, severityBand } from '../helpers/raw-summary-findings.js';
import { makeTempDir } from '../helpers/temp-dirs.js';
import { takeUnscoredSnapshotPair } from '../helpers/unscored-snapshot-pair.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const SCHEMA = path.resolve(
  import.meta.dirname,
  '../../schemas/oscal/assessment-results-1.1.2.reduced.schema.json',
);
const SEVERITIES = ['critical', 'high', 'medium', 'low', 'info'];

interface Prop {
  name: string;
  value: string;
}

let doc: Json;
/** From the raw JSON: the findings (analyzed runs) by id, with the score the API sent (if any). */
let runs: Map<string, { scored: boolean; score: number | null }>;

const propOf = (props: Prop[], name: string): string | undefined => props.find((p) => p.name === name)?.value;

/** Every string in the document with where it is, for the checks no field may fail. */
function strings(value: unknown, at = '$'): [string, string][] {
  if (typeof value === 'string') return [[at, value]];
  if (Array.isArray(value)) return value.flatMap((item, i) => strings(item, `${at}[${i}]`));
  if (value !== null && typeof value === 'object')
    return Object.entries(value).flatMap(([key, item]) => strings(item, `${at}.${key}`));
  return [];
}

/** Every prop (an object with a name and a string value) in the document. */
function props(value: unknown): Prop[] {
  if (Array.isArray(value)) return value.flatMap(props);
  if (value === null || typeof value !== 'object') return [];
  const own = value as Record<string, unknown>;
  const self = typeof own.name === 'string' && typeof own.value === 'string' ? [own as unknown as Prop] : [];
  return [...self, ...Object.values(own).flatMap(props)];
}

beforeAll(async () => {
  const work = await makeTempDir('airt-oscal-unknown-');
  const pair = await takeUnscoredSnapshotPair(path.join(work, 'snapshots'));
  await restoreBestScores(pair.renamed.dir, pair.tampered, (s) => typeof s === 'number' && s >= 0.9);
  const db = path.join(work, 'w.duckdb');
  await loadSnapshots(db, [pair.clean.dir, pair.renamed.dir]);
  const out = path.join(work, 'ar.json');
  await exportOscal({ db, project: pair.tampered, snapshot: pair.renamed.id, out });
  doc = JSON.parse(await readFile(out, 'utf8')) as Json;
  runs = new Map(
    analyzedRuns(await readRawSummary(pair.renamed.dir, pair.tampered)).map((run) => [
      String(run.id),
      {
        scored: Object.hasOwn(run, 'best_score'),
        score: typeof run.best_score === 'number' ? run.best_score : null,
      },
    ]),
  );
  // Both kinds in one project, none triaged (no findings/ in the snapshot: severity is the band).
  expect([...runs.values()].filter((r) => r.scored).length).toBeGreaterThan(0);
  expect([...runs.values()].filter((r) => !r.scored).length).toBeGreaterThan(0);
  await expect(readFile(path.join(pair.renamed.dir, 'findings'), 'utf8')).rejects.toThrow();
}, 120_000);

describe('OSCAL of findings whose severity is unknown', () => {
  it('says unknown, with the reason, where the severity and the score would be; known ones keep their band', async () => {
    const validate = new Ajv({ allErrors: true, strict: false }).compile(
      JSON.parse(await readFile(SCHEMA, 'utf8')) as object,
    );
    expect([validate(doc), validate.errors ?? []]).toEqual([true, []]);

    const result = doc['assessment-results'].results[0] as Json;
    const observations = result.observations as Json[];
    expect(observations.map((o) => propOf(o.props as Prop[], 'attack-run-id')).sort()).toEqual(
      [...runs.keys()].sort(),
    );
    for (const observation of observations) {
      const props = observation.props as Prop[];
      const id = propOf(props, 'attack-run-id') ?? '';
      const run = runs.get(id);
      if (run?.scored) {
        expect([id, propOf(props, 'severity')]).toEqual([id, severityBand(run.score)]);
      } else {
        expect([id, propOf(props, 'severity')]).toEqual([id, 'unknown']);
        expect(propOf(props, 'best-score')).toBe('unknown');
        expect(observation.description).toContain(
          'best judge score unknown (the attack run lacks its required best_score)',
        );
      }
    }
    // Every finding is open, but only a run that reached its goal is a risk: the scored ones here
    // (critical, TAXONOMY: at least 0.5 succeeds); an unscored run's outcome is unknown, so no risk.
    const risks = result.risks as Json[];
    const successful = [...runs].filter(([, r]) => r.scored && (r.score ?? 0) >= 0.5).map(([id]) => id);
    expect(successful.length).toBeGreaterThan(0);
    expect(risks.map((risk) => propOf(risk.props as Prop[], 'attack-run-id')).sort()).toEqual(
      successful.sort(),
    );
    for (const risk of risks) {
      const props = risk.props as Prop[];
      expect(risk.title).toMatch(new RegExp(`^${propOf(props, 'severity')} risk: `, 'u'));
    }
    for (const observation of observations) {
      const props = observation.props as Prop[];
      const unscored = runs.get(propOf(props, 'attack-run-id') ?? '')?.scored === false;
      expect(propOf(props, 'outcome')).toBe(unscored ? 'unknown' : 'successful');
    }
  });

  it('holds no "null" in any field and no severity but the five levels and unknown', () => {
    const found = strings(doc);
    expect(found.length).toBeGreaterThan(0);
    expect(found.filter(([, text]) => /\bnull\b/u.test(text))).toEqual([]);
    // Every severity prop, wherever it is (observations, risks): a level, or unknown.
    const severities = props(doc).filter((p) => p.name === 'severity');
    const scoredSuccesses = [...runs.values()].filter((r) => r.scored && (r.score ?? 0) >= 0.5).length;
    expect(severities).toHaveLength(runs.size + scoredSuccesses);
    for (const { value } of severities) expect([...SEVERITIES, 'unknown']).toContain(value);
  });
});
