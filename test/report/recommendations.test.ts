/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-argument, @typescript-eslint/no-explicit-any -- raw snapshot JSON is read untyped on purpose: the expected mapping is recomputed from it */
/**
 * Remediation in the compliance report: each failing category shows the service's own
 * `recommendations` where its assessments sent some for a goal category whose attack runs were tagged
 * with the category (the newest assessment's per goal category), else the guidance shipped with the
 * tool; both with the framework's link. The expected mapping is recomputed from the snapshot's raw
 * summary JSON, not from the warehouse.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildModel } from '../../src/report/build-model.js';
import type { ComplianceModel } from '../../src/report/model.js';
import { renderHtml, renderMarkdown } from '../../src/report/render.js';
import { startSimulator } from '../../src/simulator/index.js';
import { openWarehouse, type Warehouse } from '../../src/warehouse/db.js';
import { loadSnapshots } from '../../src/warehouse/loader.js';
import { makeTempDir } from '../helpers/temp-dirs.js';
import { snapshotSimulator } from '../helpers/simulator-snapshot.js';

const TAG_FIELDS: Record<string, string> = {
  owasp_categories: 'owasp_llm',
  owasp_agentic_categories: 'owasp_agentic',
  atlas_techniques: 'atlas',
  saif_categories: 'saif',
  nist_ai_rmf_function: 'nist',
};

let warehouse: Warehouse;
let snapshotDir: string;
let project: string;

beforeAll(async () => {
  const dir = await makeTempDir('airt-recommend-');
  const sim = await startSimulator({
    seed: 5,
    projects: 1,
    scale: { assessmentsPerProject: 3, attacksPerAssessment: 6, trialsPerAttack: 3, evaluationJobs: 0 },
  });
  try {
    project = sim.projectKeys[0] ?? '';
    const snapshot = await snapshotSimulator(sim, {
      out: path.join(dir, 'snapshots'),
      projects: [project],
      trialsLimit: 5,
    });
    snapshotDir = snapshot.dir;
    const db = path.join(dir, 'w.duckdb');
    await loadSnapshots(db, [snapshot.dir]);
    warehouse = await openWarehouse(db, { readOnly: true });
  } finally {
    await sim.close();
  }
}, 60_000);
afterAll(() => warehouse?.close());

/** framework/tag → goal category → the newest assessment's recommendation text, from raw JSON. */
async function expectedFromRaw(): Promise<Map<string, Map<string, string>>> {
  const projectsDir = path.join(snapshotDir, 'projects');
  const [projectDir] = await readdir(projectsDir);
  const summary = JSON.parse(
    await readFile(path.join(projectsDir, projectDir ?? '', 'summary.json'), 'utf8'),
  );
  const assessments = [...(summary.assessments as any[])].sort((a, b) =>
    String(b.created_at).localeCompare(String(a.created_at)),
  );
  const expected = new Map<string, Map<string, string>>();
  for (const assessment of assessments) {
    for (const item of (assessment.recommendations ?? []) as any[]) {
      for (const run of (assessment.attack_runs ?? []) as any[]) {
        if (run.goal_category !== item.category) continue;
        for (const [field, framework] of Object.entries(TAG_FIELDS)) {
          const value = run.compliance_tags?.[field];
          for (const tag of typeof value === 'string' ? [value] : ((value ?? []) as string[])) {
            const key = `${framework} ${tag}`;
            const byGoal = expected.get(key) ?? new Map<string, string>();
            if (!byGoal.has(item.category)) byGoal.set(item.category, `${item.title} / ${item.detail}`);
            expected.set(key, byGoal);
          }
        }
      }
    }
  }
  return expected;
}

describe('remediation per failing category', () => {
  it('carries the service recommendations to the tagged framework categories, else ships guidance', async () => {
    const model = (await buildModel(warehouse.conn, { kind: 'compliance', project })) as ComplianceModel;
    const expected = await expectedFromRaw();
    let withService = 0;
    for (const section of model.frameworks) {
      for (const row of section.categories) {
        const want = expected.get(`${section.framework} ${row.tag}`) ?? new Map<string, string>();
        const got = new Map(
          (row.recommendations ?? []).map((rec) => [rec.goalCategory, `${rec.title} / ${rec.detail}`]),
        );
        expect(got, `${section.framework} ${row.tag}`).toEqual(want);
        if ((row.currentState ?? row.state) !== 'failing') continue;
        if (got.size > 0) withService += 1;
      }
    }
    // Some failing category shows the service's words (the rest fall back to shipped guidance; the
    // golden compliance report shows both side by side).
    expect(withService).toBeGreaterThan(0);

    const md = (await renderMarkdown(model)).markdown;
    const html = (await renderHtml(model)).html;
    const llm01 = model.frameworks
      .find((section) => section.framework === 'owasp_llm')
      ?.categories.find((row) => row.tag === 'LLM01:2025');
    const first = llm01?.recommendations?.[0];
    expect(first?.title).toBeTruthy();
    // Markdown escapes punctuation: compared without the backslashes.
    expect(md.replace(/\\/gu, '')).toContain('`LLM01:2025` Prompt Injection: the service recommends:');
    expect(md.replace(/\\/gu, '')).toContain(first?.title ?? '');
    expect(html).toContain(
      '<a href="https://genai.owasp.org/llm-top-10/">Framework page for <code>LLM01:2025</code></a>',
    );
  });
});
