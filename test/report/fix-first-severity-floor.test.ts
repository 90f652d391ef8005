/**
 * "Fix first" has a severity floor: an info finding (score below 0.3, the attack mostly failed) is
 * nothing to fix first, however high the service ranks it once the findings above it are closed. A
 * simulated project whose ranking runs critical, critical, critical, low (0.30), info, info: with the
 * three critical findings triaged false positive through the CLI the list holds the low one alone,
 * and with the low one remediated too it says that none of the ranked findings is open at severity
 * low or worse, not a list of near misses.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FindingSummary } from '../../src/api/schemas.js';
import { buildModel } from '../../src/report/build-model.js';
import type { ExecutiveModel } from '../../src/report/model.js';
import { renderHtml, renderMarkdown } from '../../src/report/render.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { openWarehouse } from '../../src/warehouse/db.js';
import { loadSnapshots } from '../../src/warehouse/loader.js';
import { snapshotSimulator } from '../helpers/simulator-snapshot.js';
import { makeTempDir } from '../helpers/temp-dirs.js';
import { triageThroughCli } from '../helpers/triaged-journal.js';
import { briefOf } from './golden-set.js';

let sim: RunningSimulator;
let dir: string;
let journal: string;
let project: string;
/** The service's ranking, best first. */
let ranking: FindingSummary[];
/** The ranked findings of severity low or worse, best first. */
let fixable: FindingSummary[];
/** The reports with every fixable finding but the last closed, then with that one closed too. */
let lowLeft: RenderedReport;
let noneLeft: RenderedReport;

interface RenderedReport {
  markdown: string;
  html: string;
}

beforeAll(async () => {
  dir = await makeTempDir('airt-fix-first-floor-');
  journal = path.join(dir, 'triage', 'journal.jsonl');
  // Seed 1 ranks three critical findings, a low one (score 0.30) and two info findings.
  sim = await startSimulator({
    seed: 1,
    projects: 1,
    scale: { assessmentsPerProject: 3, attacksPerAssessment: 6, trialsPerAttack: 2, evaluationJobs: 0 },
  });
  project = sim.projectKeys[0] ?? '';
  ranking = [...sim.truth.summary(project).top_findings].sort((a, b) => a.rank - b.rank);
  fixable = ranking.filter((finding) => finding.severity !== 'info');
  lowLeft = await reportAfterTriage('low-left', fixable.slice(0, -1), ['--status', 'false_positive']);
  noneLeft = await reportAfterTriage('none-left', fixable.slice(-1), ['--status', 'remediated']);
}, 120_000);
afterAll(() => sim?.close());

/** Triages `findings` as `args` into the journal, snapshots, loads and renders the executive report. */
async function reportAfterTriage(
  name: string,
  findings: readonly FindingSummary[],
  args: readonly string[],
): Promise<RenderedReport> {
  for (const finding of findings)
    await triageThroughCli(sim, dir, journal, finding.attack_run_id ?? '', args);
  const snapshot = await snapshotSimulator(sim, {
    out: path.join(dir, name),
    projects: [project],
    trialsLimit: 5,
    journal,
  });
  const db = path.join(dir, `${name}.duckdb`);
  await loadSnapshots(db, [snapshot.dir]);
  const warehouse = await openWarehouse(db, { readOnly: true });
  try {
    const model = (await buildModel(warehouse.conn, { kind: 'executive', project })) as ExecutiveModel;
    return { markdown: (await renderMarkdown(model)).markdown, html: (await renderHtml(model)).html };
  } finally {
    warehouse.close();
  }
}

/** The Markdown brief's "Fix first" part, Markdown escapes removed. */
function fixFirstOf(markdown: string): string {
  return briefOf(markdown, '**Fix first:**', '**What the figures exclude:**').replace(/\\/gu, '');
}

describe('Fix first leaves out info findings', () => {
  it('lists the one open low finding, not the info findings ranked below it', () => {
    // The scenario the test needs: info findings ranked right below the last finding of severity low.
    const low = fixable.at(-1);
    expect(low?.severity).toBe('low');
    expect(ranking.slice(fixable.length).length).toBeGreaterThan(1);
    expect(ranking.slice(fixable.length).every((finding) => finding.severity === 'info')).toBe(true);

    const { markdown, html } = lowLeft;
    const fixFirst = fixFirstOf(markdown);
    expect([...fixFirst.matchAll(/^\d\. (.*)$/gmu)].map((match) => match[1])).toEqual([
      `low: ${low?.attack_name} against ${low?.goal_category} (score ${low?.score.toFixed(2)}, ${low?.assessment_name})`,
    ]);
    expect(fixFirst).not.toContain('info:');
    expect(fixFirst).toContain('highest-ranked open findings of severity low or worse');
    const items = /<ol class="fix-first">([\s\S]*?)<\/ol>/u.exec(html)?.[1] ?? '';
    expect(items.match(/<li>/gu)).toHaveLength(1);
    expect(items).not.toContain('sev-info');
  });

  it('says none of the ranked findings is open at severity low or worse once the low one is closed too', () => {
    const { markdown, html } = noneLeft;
    const fixFirst = fixFirstOf(markdown);
    expect(fixFirst.match(/^\d\. /gmu)).toBeNull();
    expect(fixFirst).toContain(
      `none of the service's ${ranking.length} highest-ranked findings are open with severity low or worse`,
    );
    expect(html).not.toContain('<ol class="fix-first">');
    expect(html).toContain(
      `None of the service's ${ranking.length} highest-ranked findings are open with severity low or worse`,
    );
  });
});
