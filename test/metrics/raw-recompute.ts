/* eslint-disable @typescript-eslint/no-unsafe-argument, @typescript-eslint/no-unsafe-member-access -- raw snapshot JSON is read untyped on purpose: this is the independent recomputation */
/**
 * The figures recomputed in plain TypeScript from a snapshot directory's raw JSON files, as
 * TAXONOMY.md defines them, without the warehouse or its SQL. Tests compare the metrics layer (and
 * every output that reads it) with this.
 *
 * - ASR counts attacks: an attack (attack run) succeeds when its best finished-trial score ≥ 0.5; an
 *   attack without a best score has no result and is not counted. Pooled over the completed or failed
 *   assessments whose overall_asr / attack_runs no analytics warning flags.
 * - Findings: every attack run of a completed or failed assessment, by current severity (the triaged
 *   FindingDetail in `findings/` when present, else the severity of its best score), findings triaged
 *   false_positive left out; open = not false_positive or remediated.
 * - Risk score: base of the worst severity present (critical 10 … info 1, none 0) × (0.6 + 0.4 × ASR);
 *   unknown (null) without an attack with a result.
 * - Coverage per framework: categories tested by any assessment / the framework's categories (the
 *   taxonomy list plus any tag the matrix adds), assessments whose compliance_matrix is flagged left out.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { FRAMEWORKS } from '../../src/report/frameworks.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

type Severity = 'critical' | 'high' | 'medium' | 'low' | 'info';
const RISK_BASE: Record<string, number> = { critical: 10, high: 8, medium: 5, low: 3, info: 1 };

export interface RawFigures {
  successful: number;
  attacks: number;
  asr: number | null;
  riskScore: number | null;
  severities: Record<Severity, number>;
  total: number;
  open: number;
  openCritical: number;
  /** Framework → tested / all categories (0–1). */
  coverage: Record<string, number>;
  /** Goal category → successful / attacks over the attack runs (all analyzed assessments). */
  categoryRuns: Record<string, { successful: number; attacks: number }>;
}

function severityOf(score: number | null | undefined): Severity {
  if (typeof score !== 'number') return 'info';
  if (score >= 0.9) return 'critical';
  if (score >= 0.7) return 'high';
  if (score >= 0.5) return 'medium';
  if (score >= 0.3) return 'low';
  return 'info';
}

/** The triaged FindingDetail bodies of the snapshot, by finding (attack run) id. */
async function triaged(snapshotDir: string): Promise<Map<string, Json>> {
  const dir = path.join(snapshotDir, 'findings');
  const files = await readdir(dir).catch(() => [] as string[]);
  const byId = new Map<string, Json>();
  for (const file of files.filter((name) => name.endsWith('.json'))) {
    const detail = JSON.parse(await readFile(path.join(dir, file), 'utf8')) as Json;
    byId.set(String(detail.id), detail);
  }
  return byId;
}

export async function recomputeFromRaw(snapshotDir: string, projectKey: string): Promise<RawFigures> {
  const summary = JSON.parse(
    await readFile(path.join(snapshotDir, 'projects', projectKey, 'summary.json'), 'utf8'),
  ) as Json;
  const details = await triaged(snapshotDir);
  const assessments = (summary.assessments ?? []) as Json[];
  const warned = (assessment: Json, slices: string[]): boolean =>
    ((assessment.analytics_warnings ?? []) as Json[]).some((w) => slices.includes(String(w.field)));
  const analyzed = assessments.filter((a) => a.status === 'completed' || a.status === 'failed');

  let successful = 0;
  let attacks = 0;
  let worst = 0;
  const categoryRuns: RawFigures['categoryRuns'] = {};
  for (const assessment of analyzed.filter((a) => !warned(a, ['overall_asr', 'attack_runs']))) {
    for (const run of (assessment.attack_runs ?? []) as Json[]) {
      if (typeof run.best_score !== 'number') continue;
      const success = run.best_score >= 0.5;
      attacks += 1;
      if (success) successful += 1;
      worst = Math.max(worst, RISK_BASE[severityOf(run.best_score)]!);
      if (typeof run.goal_category === 'string') {
        const entry = (categoryRuns[run.goal_category] ??= { successful: 0, attacks: 0 });
        entry.attacks += 1;
        if (success) entry.successful += 1;
      }
    }
  }
  const asr = attacks === 0 ? null : successful / attacks;
  const riskScore = Math.round(worst * (0.6 + 0.4 * (asr ?? 0)) * 100) / 100;

  const severities = { critical: 0, high: 0, medium: 0, low: 0, info: 0 };
  let open = 0;
  let openCritical = 0;
  for (const assessment of analyzed.filter((a) => !warned(a, ['severity_breakdown', 'attack_runs']))) {
    for (const run of (assessment.attack_runs ?? []) as Json[]) {
      const detail = details.get(String(run.id));
      const status = typeof detail?.finding_status === 'string' ? detail.finding_status : 'open';
      const severity =
        typeof detail?.severity === 'string' ? detail.severity.toLowerCase() : severityOf(run.best_score);
      const isOpen = status !== 'false_positive' && status !== 'remediated';
      if (isOpen) open += 1;
      if (isOpen && severity === 'critical') openCritical += 1;
      if (status === 'false_positive') continue;
      if (severity in severities) severities[severity as keyof typeof severities] += 1;
    }
  }

  const matrices = assessments
    .filter((a) => !warned(a, ['compliance_matrix']) && a.compliance_matrix)
    .map((a) => a.compliance_matrix as Json);
  const coverage: Record<string, number> = {};
  for (const framework of new Set(matrices.flatMap((m) => Object.keys(m)))) {
    const tags = new Set([
      ...(FRAMEWORKS.find((f) => f.key === framework)?.categories.map((c) => c.tag) ?? []),
      ...matrices.flatMap((m) => Object.keys(m[framework] ?? {})),
    ]);
    const tested = [...tags].filter((tag) => matrices.some((m) => m[framework]?.[tag]?.tested === true));
    coverage[framework] = tested.length / tags.size;
  }

  return {
    successful,
    attacks,
    asr,
    // No attack with a result: the worst severity is unknown, so is the risk score (never 0).
    riskScore: attacks === 0 ? null : riskScore,
    severities,
    total: Object.values(severities).reduce((sum, n) => sum + n, 0),
    open,
    openCritical,
    coverage,
    categoryRuns,
  };
}
