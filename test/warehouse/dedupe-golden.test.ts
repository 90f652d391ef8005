/**
 * Issue 14: storing trial rows once per distinct content changes no output. Every named query, every
 * relation of the table contract and the executive reports of a database holding five snapshots (two
 * of which share all their trial files, one read strictly) equal, byte for byte, the files the
 * loader wrote before deduplication (test/golden/warehouse-dedupe/, never rewritten by CI). The two
 * executive reports were re-rendered once when the report layout changed (issue 16: a summary first,
 * unchanged rows counted instead of listed); their figures were checked equal to the old files then.
 * Session 4 changed only their chart captions (sample sizes named) and added the named query
 * @expiring_acceptances (empty here: the fixtures hold no dated acceptance). Session 8 filled the
 * assessment_id of assessment top findings in relation-findings.json (it was NULL; checked: the only
 * change, each id the assessment of the finding's attack run). Session 13 made a snapshot's figures a
 * function of its own files: support-agent's newest snapshot here ("fourth", a copy of the first
 * fixture) no longer takes finding f…3001's triage (accepted_risk, severity high, notes) from the
 * second and third snapshots' findings/, which it does not hold; so that finding reads critical (its
 * score) and open in executive-support-agent.md, query-top_open_findings.json and
 * relation-latest_findings.json (checked: the only change in the three files). Session 14: the
 * executive reports' top-findings "Triage" column shows the status the figures count an untriaged
 * finding under, "open", where it showed "—" (checked: the only change, six cells). Session 15: the
 * attack_runs relation gained `best_score_unknown` (false in every row), and `query`'s JSON writes
 * bidi, C1 and invisible characters as `\uXXXX` (checked: each of the seven rewritten relation files
 * parses to the same value as before).
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runQuery } from '../../src/warehouse/query.js';
import { makeTempDir } from '../helpers/temp-dirs.js';
import { buildGoldenDatabase, DEDUPE_GOLDEN_DIR, renderDedupeGoldenSet } from './dedupe-golden-set.js';

let rendered: Map<string, string>;
let db: string;

beforeAll(async () => {
  const dir = await makeTempDir('airt-dedupe-golden-');
  db = await buildGoldenDatabase(dir);
  rendered = await renderDedupeGoldenSet(db, dir);
}, 60_000);

describe('the deduplicated warehouse against the outputs of the old way', () => {
  it('renders every golden file, and no other', async () => {
    const expected = (await readdir(DEDUPE_GOLDEN_DIR)).sort();
    expect([...rendered.keys()].sort()).toEqual(expected);
  });

  it('gives every named query, relation and executive report byte for byte', async () => {
    for (const name of (await readdir(DEDUPE_GOLDEN_DIR)).sort()) {
      const expected = await readFile(path.join(DEDUPE_GOLDEN_DIR, name), 'utf8');
      expect(rendered.get(name), name).toBe(expected);
    }
  });

  it('stores the trials the snapshots share once', async () => {
    const result = await runQuery(
      db,
      `SELECT (SELECT count(*) FROM trial_content), (SELECT count(*) FROM trials),
              (SELECT count(*) FROM trial_content_files)`,
    );
    const [stored, viewed, contents] = (result.rows[0] ?? []).map(Number);
    // first: 3 files (15 trials); second and third: the same 3 plus one (4 trials); fourth: first's
    // files, one of them read strictly (7 trials stored apart); partial: none.
    expect(viewed).toBe(15 + 19 + 19 + 15);
    expect(stored).toBe(15 + 4 + 7);
    expect(contents).toBe(5);
  });

  it("stores the small tables' rows the snapshots share once, per project and assessment (row sets)", async () => {
    // third holds second's summaries and fourth first's: their rows are the earlier ones, mapped again.
    const result = await runQuery(
      db,
      `SELECT (SELECT count(*) FROM stored_attack_runs), (SELECT count(*) FROM attack_runs),
              (SELECT count(*) FROM attack_runs
               WHERE snapshot_id IN ('20260316T060000Z-third', '20260317T060000Z-fourth'))`,
    );
    const [stored, viewed, again] = (result.rows[0] ?? []).map(Number);
    expect(again).toBeGreaterThan(0);
    // Independently of the loader: an assessment's rows in a snapshot are stored once whatever number
    // of snapshots hold the same rows for it.
    const seen = await runQuery(db, `SELECT * FROM attack_runs`);
    const at = (name: string): number => seen.columns.findIndex((c) => c.name === name);
    const [snapshotAt, idAt, keyAt, assessmentAt] = [
      'snapshot_id',
      'project_id',
      'project_key',
      'assessment_id',
    ].map(at);
    const groups = new Map<string, string[]>();
    for (const row of seen.rows) {
      const group = JSON.stringify([snapshotAt, idAt, keyAt, assessmentAt].map((i) => row[i!]));
      const content = JSON.stringify(
        row.filter((_, i) => i !== snapshotAt),
        (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v),
      );
      groups.set(group, [...(groups.get(group) ?? []), content]);
    }
    const distinct = new Map([...groups.values()].map((lines) => [lines.sort().join('\n'), lines.length]));
    const expected = [...distinct.values()].reduce((sum, n) => sum + n, 0);
    expect(stored).toBe(expected);
    expect(stored).toBeLessThanOrEqual((viewed ?? 0) - (again ?? 0));
  });
});
