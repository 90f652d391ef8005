/**
 * The kind-specific parts of a template view (see view.ts): one function per report kind, each
 * turning model rows into template rows with data text escaped and CSS classes from our allowlists.
 */
import { STATE_LABELS } from './charts/compliance-states.js';
import { heatmapChartName } from './charts/catalog.js';
import { countCategoriesByState } from './compliance-state.js';
import { coverageCellText } from './coverage-cell-state.js';
import { formatDate, formatPercent, riskBand } from './format.js';
import {
  projectLabel,
  SEVERITY_LEVELS,
  trendPointProject,
  workspaceLabel,
  type ComplianceCategoryRow,
  type ComplianceModel,
  type ExecutiveModel,
  type PortfolioModel,
} from './model.js';
import { Escaped } from './output-context.js';
import { remediationFor } from '../taxonomy/remediation.js';
import { MIN_TRIALS_FOR_EVIDENCE } from '../metrics/read-figures.js';
import { riskAcceptancesView } from './view-risk-acceptances.js';
import { sinceLastSnapshotView } from './view-since-last-snapshot.js';
import { riskClass, severityClass, type ChartView, type ViewText } from './view-text.js';

type ChartLookup = (name: string) => ChartView | null;

/** Our words for where the service's compliance_posture disagrees with the matrix (never a green). */
const DISAGREEMENT_TEXT: Record<string, string> = {
  missing_from_posture: 'framework missing',
  coverage_pct_is_a_fraction: 'coverage sent as a fraction',
  coverage_pct_differs: 'coverage differs',
  untested_listed_as_passing: 'untested listed as passing',
  failing_listed_as_passing: 'failing listed as passing',
};

function postureText(disagreements: readonly string[] | undefined): string {
  if (disagreements === undefined) return '—';
  if (disagreements.length === 0) return 'agrees';
  return `disagrees: ${disagreements.map((code) => DISAGREEMENT_TEXT[code] ?? 'other').join('; ')}`;
}

export function executiveSections(model: ExecutiveModel, text: ViewText, chart: ChartLookup) {
  const { kpis } = model;
  const severities = SEVERITY_LEVELS.map((severity) => ({
    severity,
    count: kpis.findingsBySeverity[severity],
  }));
  const timesUsed = model.attackEffectiveness.map((row) => row.timesUsed);
  return {
    kpis: {
      riskLevel: text.maybeLabel(kpis.riskLevel),
      riskScore: kpis.riskScore,
      riskBand: riskBand(kpis.riskScore) ?? 'unknown',
      riskClass: riskClass(kpis.riskScore, kpis.riskLevel),
      overallAsr: kpis.overallAsr,
      overallAsrSuccessful: kpis.overallAsrSuccessful ?? null,
      overallAsrAttacks: kpis.overallAsrAttacks ?? null,
      openFindings: kpis.openFindings ?? null,
      assessments: kpis.assessments,
      attacks: kpis.attacks,
      trials: kpis.trials,
      totalFindings: kpis.totalFindings,
      severities,
      topFindings: model.topFindings.length,
      firstAssessment: formatDate(kpis.firstAssessmentAt),
      lastAssessment: formatDate(kpis.lastAssessmentAt),
    },
    riskTrend: { chart: chart('risk-trend'), points: model.riskTrend.length },
    severityDistribution: {
      chart: chart('severity-distribution'),
      rows: severities,
    },
    asrByCategory: {
      chart: chart('asr-by-category'),
      rows: model.asrByCategory.rows.map((row) => ({
        category: text.label(row.category),
        asr: row.asr,
        successfulAttacks: row.successfulAttacks,
        totalAttacks: row.totalAttacks,
        totalTrials: row.totalTrials,
      })),
      excludes: model.asrByCategory.excludes.map((exclusion) => text.exclusion(exclusion)),
    },
    attackEffectiveness: {
      chart: chart('attack-effectiveness'),
      /** Sum of the service's times_used; null when any row's is unknown. */
      timesUsedTotal: timesUsed.every((value) => value !== null)
        ? timesUsed.reduce<number>((sum, value) => sum + (value ?? 0), 0)
        : null,
      attacks: kpis.attacks,
      rows: model.attackEffectiveness.map((row) => ({
        attack: text.label(row.attack),
        timesUsed: row.timesUsed,
        successRate: row.successRate,
        avgBestScore: row.avgBestScore,
        totalTrials: row.totalTrials,
      })),
    },
    transformLift: {
      chart: chart('transform-lift'),
      baselineAsr: model.transformLift.baselineAsr,
      rows: model.transformLift.rows.map((row) => ({
        transform: text.label(row.transform),
        lift: row.lift,
        avgAsr: row.avgAsr,
        timesUsed: row.timesUsed,
      })),
    },
    complianceCoverage: {
      chart: chart('compliance-coverage'),
      rows: model.complianceCoverage.map((row) => ({
        title: text.label(row.title),
        coveragePct: row.coveragePct,
        testedCategories: row.testedCategories,
        totalCategories: row.totalCategories,
        failing: row.failing,
        passing: row.passing,
        insufficientEvidence: row.insufficientEvidence ?? null,
        untested: row.untested,
        posture: postureText(row.disagreements),
      })),
    },
    riskByDomain: {
      chart: chart('risk-by-domain'),
      excludes: (model.riskByDomainExcludes ?? []).map((exclusion) => text.exclusion(exclusion)),
      rows: model.riskByDomain.map((row) => ({
        domain: text.label(row.domain),
        critical: row.critical,
        high: row.high,
        medium: row.medium,
        total: row.total,
        avgAsr: row.avgAsr,
        successfulAttacks: row.successfulAttacks ?? null,
        attacks: row.attacks ?? null,
        maxScore: row.maxScore,
        serviceTotal: row.serviceTotal ?? null,
        serviceAvgAsr: row.serviceAvgAsr ?? null,
      })),
    },
    goalAsr: {
      shown: model.goalAsr !== undefined,
      minTrials: MIN_TRIALS_FOR_EVIDENCE,
      more: model.goalAsr?.more ?? 0,
      excludes: (model.goalAsr?.excludes ?? []).map((exclusion) => text.exclusion(exclusion)),
      rows: (model.goalAsr?.rows ?? []).map((row) => ({
        goalCategory: text.maybeLabel(row.goalCategory),
        goal: text.excerpt(row.goal),
        asr: row.asr,
        successfulAttacks: row.successfulAttacks,
        attacks: row.attacks,
        trials: row.trials,
        evidence: row.evidence === 'measured' ? 'measured' : 'insufficient evidence',
        serviceAsr: row.serviceAsr,
      })),
    },
    topFindings: model.topFindings.map((finding) => ({
      rank: finding.rank,
      severity: text.label(finding.severity),
      severityClass: severityClass(finding.severity),
      attack: text.label(finding.attack),
      goalCategory: text.maybeLabel(finding.goalCategory),
      score: finding.score,
      triageStatus: text.maybeLabel(finding.triageStatus),
      assessment: text.maybeLabel(finding.assessmentName),
      goal: text.excerpt(finding.goal),
      candidate: text.excerpt(finding.candidate),
      response: text.excerpt(finding.response),
      notes: text.excerpt(finding.notes),
    })),
    evaluationJobs: model.evaluationJobs.map((job) => ({
      id: text.code(job.id),
      name: text.label(job.name),
      status: text.label(job.status),
      kind: text.maybeLabel(job.kind),
      model: text.maybeLabel(job.model),
      queuedAt: formatDate(job.queuedAt),
      completedAt: formatDate(job.completedAt),
      datasetSize: job.datasetSize,
      passed: job.passed,
      failed: job.failed,
      errored: job.errored,
      infraError: job.infraError,
      timedOut: job.timedOut,
      cancelled: job.cancelled,
      passRate: job.passRate,
      errorSummary: text.excerpt(job.errorSummary),
    })),
    sinceLastSnapshot: sinceLastSnapshotView(model.sinceLastSnapshot, text),
    riskAcceptances: riskAcceptancesView(model.riskAcceptances, text),
  };
}

/** Service recommendations shown per failing category; the rest are counted. */
const RECOMMENDATIONS_SHOWN = 3;

/**
 * What to do about each category failing now (its current state, else its worst): the service's own
 * recommendations for it where its assessments sent any, else the guidance we ship for the framework
 * category; either way with the link to the framework's own page.
 */
function remediationRows(framework: string, categories: readonly ComplianceCategoryRow[], text: ViewText) {
  return categories
    .filter((row) => (row.currentState ?? row.state) === 'failing')
    .map((row) => {
      const remediation = remediationFor(framework, row.tag);
      const recommendations = row.recommendations ?? [];
      return {
        tag: text.code(row.tag),
        title: text.maybeLabel(row.title),
        service: recommendations.slice(0, RECOMMENDATIONS_SHOWN).map((item) => ({
          title: text.maybeLabel(item.title),
          detail: text.excerpt(item.detail),
          priority: text.maybeLabel(item.priority),
          goalCategory: text.label(item.goalCategory),
          assessment: text.label(item.assessment),
        })),
        moreService: Math.max(0, recommendations.length - RECOMMENDATIONS_SHOWN),
        guidance: recommendations.length > 0 ? null : (remediation?.guidance ?? null),
        url: remediation?.url ?? null,
      };
    });
}

export function complianceSections(model: ComplianceModel, text: ViewText, chart: ChartLookup) {
  return {
    coverage: { chart: chart('compliance-coverage') },
    states: { chart: chart('compliance-states') },
    frameworks: model.frameworks.map((section, index) => {
      const counts = countCategoriesByState(section.categories);
      return {
        key: text.code(section.framework),
        title: text.label(section.title),
        testedCategories: section.testedCategories,
        totalCategories: section.totalCategories,
        coverage: section.coverage,
        minTrials: section.minTrials,
        counts: {
          failing: counts.failing,
          passing: counts.passing,
          insufficientEvidence: counts.insufficient_evidence,
          notTested: counts.not_tested,
        },
        categories: section.categories.map((row) => ({
          tag: text.code(row.tag),
          title: text.maybeLabel(row.title),
          state: row.state,
          stateLabel: STATE_LABELS[row.state],
          currentStateLabel: row.currentState === undefined ? null : STATE_LABELS[row.currentState],
          lastTested: row.lastTestedAt === undefined ? null : formatDate(row.lastTestedAt ?? null),
          maxAsr: row.maxAsr,
          maxSeverity: text.maybeLabel(row.maxSeverity),
          severityClass: severityClass(row.maxSeverity),
          totalTrials: row.totalTrials,
          attacksUsed:
            row.attacksUsed === null
              ? null
              : row.attacksUsed.length === 0
                ? text.label('none')
                : new Escaped(row.attacksUsed.map((attack) => text.label(attack).value).join(', ')),
          assessmentsTested: row.assessmentsTested,
        })),
        remediation: remediationRows(section.framework, section.categories, text),
        assessments: section.heatmap.assessments.length,
        heatmap: chart(heatmapChartName(section, index)),
        excludes: section.excludes.map((exclusion) => text.exclusion(exclusion)),
      };
    }),
  };
}

export function portfolioSections(model: PortfolioModel, text: ViewText, chart: ChartLookup) {
  const frameworks = [...new Set(model.projects.flatMap((row) => row.coverage.map((cell) => cell.title)))];
  return {
    portfolioCharts: {
      risk: chart('portfolio-risk'),
      findings: chart('portfolio-findings'),
      coverage: chart('portfolio-coverage'),
      asrTrend: chart('portfolio-asr-trend'),
    },
    frameworkTitles: frameworks.map((title) => text.label(title)),
    // Project keys repeat across workspaces: the table names each row's workspace when there are several.
    multiWorkspace: model.projects.some((row) => row.project.workspace !== undefined),
    projects: model.projects.map((row) => ({
      name: text.label(row.project.name ?? row.project.key),
      key: text.code(row.project.key),
      workspace: text.maybeLabel(
        row.project.workspace === undefined ? null : workspaceLabel(row.project.workspace),
      ),
      snapshotId: text.code(row.snapshotId),
      riskLevel: text.maybeLabel(row.riskLevel),
      riskScore: row.riskScore,
      riskClass: riskClass(row.riskScore, row.riskLevel),
      overallAsr: row.overallAsr,
      overallAsrSuccessful: row.overallAsrSuccessful ?? null,
      overallAsrAttacks: row.overallAsrAttacks ?? null,
      assessments: row.assessments,
      severities: SEVERITY_LEVELS.map((severity) => ({ severity, count: row.findingsBySeverity[severity] })),
      coverage: frameworks.map((title) => {
        const cell = row.coverage.find((entry) => entry.title === title);
        // The state in words beside the coverage, as in the grid: untested never reads as passing.
        return {
          coveragePct: cell?.coveragePct ?? null,
          display: cell === undefined ? formatPercent(null) : coverageCellText(cell),
        };
      }),
    })),
    asrTrend: model.asrTrend.map((point) => ({
      project: text.label(projectLabel(trendPointProject(point))),
      snapshotId: text.code(point.snapshotId),
      fetchedAt: formatDate(point.fetchedAt),
      overallAsr: point.overallAsr,
    })),
  };
}
