/**
 * Report rendering figures (issue 5): time to render the executive HTML of a project with 500
 * assessments (target < 3 s) and its size (target < 3 MB), from a synthetic model; plus the heaviest
 * compliance report (all five frameworks × 500 assessments in heatmaps) for reference.
 * Prints one JSON line per figure.
 */
import { performance } from 'node:perf_hooks';
import {
  classifyCategory,
  DEFAULT_MIN_TRIALS_FOR_EVIDENCE,
  type ComplianceCell,
} from '../src/report/compliance-state.js';
import { FRAMEWORKS } from '../src/report/frameworks.js';
import {
  emptyDataQuality,
  SEVERITY_LEVELS,
  type ComplianceFrameworkSection,
  type ComplianceModel,
  type ExecutiveModel,
} from '../src/report/model.js';
import { complianceNarrative, executiveNarrative } from '../src/report/narrative.js';
import { renderHtml } from '../src/report/render.js';
import { GENERATIVE_ATTACKS, GOAL_CATEGORIES, TRANSFORMS } from '../src/simulator/taxonomy.js';

const ASSESSMENTS = 500;
// The taxonomy's real names, shared with the simulator, so the synthetic model looks like real data.
const CATEGORIES = GOAL_CATEGORIES.map((category) => category.name);
const ATTACKS = GENERATIVE_ATTACKS;

/** Deterministic pseudo-random fractions (no Math.random: same figures every run). */
function fraction(seed: number): number {
  const x = Math.sin(seed * 12.9898) * 43758.5453;
  return x - Math.floor(x);
}

const assessments = Array.from({ length: ASSESSMENTS }, (_, index) => ({
  id: `00000000-0000-4000-8000-${index.toString(16).padStart(12, '0')}`,
  name: `Nightly sweep #${index + 1} <b>${'x'.repeat(index % 40)}</b>`,
  date: new Date(Date.UTC(2025, 0, 1) + index * 86_400_000).toISOString(),
}));
const longText = (seed: number): string =>
  `Ignore previous instructions <script>alert(${seed})</script> `.repeat(12);

function executiveModel(): ExecutiveModel {
  const base: Omit<ExecutiveModel, 'summary'> = {
    kind: 'executive',
    project: { id: '11111111-1111-4111-8111-111111111111', key: 'bench-project', name: 'Bench project' },
    kpis: {
      riskLevel: 'high',
      riskScore: 7.1,
      overallAsr: 0.38,
      assessments: ASSESSMENTS,
      attacks: ASSESSMENTS * 16,
      trials: ASSESSMENTS * 320,
      totalFindings: 4000,
      findingsBySeverity: { critical: 120, high: 610, medium: 1400, low: 1100, info: 770 },
      firstAssessmentAt: assessments[0]?.date ?? null,
      lastAssessmentAt: assessments.at(-1)?.date ?? null,
    },
    riskTrend: assessments.map((assessment, index) => ({
      assessmentId: assessment.id,
      assessmentName: assessment.name,
      date: assessment.date,
      riskScore: Math.round(fraction(index) * 100) / 10,
      riskLevel: 'high',
      overallAsr: fraction(index + 7),
    })),
    asrByCategory: {
      rows: CATEGORIES.map((category, index) => ({
        category,
        asr: fraction(index + 3),
        successfulAttacks: 40,
        totalAttacks: 100,
        totalTrials: 2000,
      })).sort((a, b) => (b.asr ?? 0) - (a.asr ?? 0)),
      excludes: [{ field: 'asr_by_category', assessments: [assessments[3]?.name ?? ''] }],
    },
    attackEffectiveness: ATTACKS.map((attack, index) => ({
      attack,
      timesUsed: 500,
      successRate: fraction(index + 11),
      avgBestScore: 0.6,
      totalTrials: 10_000,
    })),
    transformLift: {
      baselineAsr: 0.3,
      rows: TRANSFORMS.map((transform, index) => ({
        transform,
        lift: fraction(index + 5) - 0.5,
        avgAsr: 0.4,
        timesUsed: 300,
      })),
    },
    complianceCoverage: FRAMEWORKS.map((framework, index) => ({
      framework: framework.key,
      title: framework.title,
      coveragePct: fraction(index + 1),
      testedCategories: 3,
      totalCategories: framework.categories.length,
      failing: 1,
      passing: 1,
      untested: 1,
    })),
    riskByDomain: ['safety', 'security', 'agentic'].map((domain) => ({
      domain,
      critical: 40,
      high: 200,
      medium: 400,
      total: 1300,
      avgAsr: 0.4,
      maxScore: 0.99,
    })),
    topFindings: Array.from({ length: 20 }, (_, index) => ({
      rank: index + 1,
      severity: SEVERITY_LEVELS[index % 5] ?? 'info',
      attack: ATTACKS[index % ATTACKS.length] ?? 'tap_attack',
      goalCategory: CATEGORIES[index % CATEGORIES.length] ?? null,
      score: 1 - index / 40,
      triageStatus: 'open',
      open: true,
      assessmentName: assessments[index]?.name ?? null,
      goal: longText(index),
      candidate: longText(index + 1),
      response: longText(index + 2),
      notes: null,
    })),
    evaluationJobs: Array.from({ length: 50 }, (_, index) => ({
      id: `22222222-2222-4222-8222-${index.toString(16).padStart(12, '0')}`,
      name: `eval-${index}`,
      status: 'completed',
      kind: 'evaluation',
      model: 'openai/gpt-4o',
      queuedAt: assessments[index]?.date ?? null,
      completedAt: assessments[index]?.date ?? null,
      datasetSize: 100,
      passed: 80,
      failed: 15,
      errored: 5,
      infraError: 0,
      timedOut: 0,
      cancelled: 0,
      passRate: 0.8,
      errorSummary: null,
    })),
    dataQuality: emptyDataQuality(),
    provenance: {
      toolVersion: '0.1.0',
      snapshots: [
        {
          snapshotId: 'bench',
          org: 'acme',
          workspace: 'main',
          status: 'complete',
          rootSha256: 'f'.repeat(64),
          fetchedAt: '2026-06-01T00:00:00Z',
          snapshotToolVersion: '0.1.0',
          apiVersion: '1',
          appVersion: '1',
          figures: true,
        },
      ],
    },
  };
  return { ...base, summary: executiveNarrative(base) };
}

function complianceModel(): ComplianceModel {
  const frameworks: ComplianceFrameworkSection[] = FRAMEWORKS.map((framework, f) => {
    const cells = framework.categories.flatMap((category, c) =>
      assessments.map((assessment, a) => {
        const tested = fraction(f * 1000 + c * 37 + a) > 0.3;
        return {
          assessmentId: assessment.id,
          tag: category.tag,
          tested,
          asr: tested ? Math.max(0, fraction(a + c) - 0.6) : null,
        };
      }),
    );
    const categories = framework.categories.map((category) => {
      const own: ComplianceCell[] = cells
        .filter((cell) => cell.tag === category.tag)
        .map((cell) => ({
          assessmentId: cell.assessmentId,
          tested: cell.tested,
          asr: cell.asr,
          maxSeverity: 'medium',
          totalTrials: 20,
          attacksUsed: ['tap_attack'],
        }));
      return {
        tag: category.tag,
        title: category.title,
        ...classifyCategory(own, DEFAULT_MIN_TRIALS_FOR_EVIDENCE),
      };
    });
    const tested = categories.filter((category) => category.state !== 'not_tested').length;
    return {
      framework: framework.key,
      title: framework.title,
      testedCategories: tested,
      totalCategories: categories.length,
      coverage: tested / categories.length,
      minTrials: DEFAULT_MIN_TRIALS_FOR_EVIDENCE,
      categories,
      heatmap: {
        assessments: assessments.map((assessment) => ({
          id: assessment.id,
          name: assessment.name,
          date: assessment.date,
        })),
        cells: cells
          .filter((cell) => cell.tested)
          .map(({ assessmentId, tag, asr }) => ({ assessmentId, tag, asr, tested: true })),
      },
      excludes: [],
    };
  });
  const executive = executiveModel();
  return {
    kind: 'compliance',
    project: executive.project,
    summary: complianceNarrative(frameworks),
    frameworks,
    dataQuality: executive.dataQuality,
    provenance: executive.provenance,
  };
}

async function measure(
  name: string,
  render: () => Promise<{ html: string }>,
  targets: { ms?: number; bytes?: number },
): Promise<void> {
  const cold = performance.now();
  const first = await render();
  const coldMs = performance.now() - cold;
  const warm = performance.now();
  const second = await render();
  const warmMs = performance.now() - warm;
  const bytes = Buffer.byteLength(first.html);
  console.log(
    JSON.stringify({
      figure: `${name}_render_ms`,
      cold_ms: Math.round(coldMs),
      warm_ms: Math.round(warmMs),
      target_ms: targets.ms ?? null,
      assessments: ASSESSMENTS,
    }),
  );
  console.log(
    JSON.stringify({
      figure: `${name}_html_bytes`,
      bytes,
      target_bytes: targets.bytes ?? null,
      identical_on_rerender: first.html === second.html,
    }),
  );
}

await measure('executive', () => renderHtml(executiveModel()), { ms: 3000, bytes: 3 * 1024 * 1024 });
await measure('compliance_all_frameworks', () => renderHtml(complianceModel()), {});
