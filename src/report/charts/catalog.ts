/** Which charts each report kind shows, in the order they appear. */
import { countCategoriesByState } from '../compliance-state.js';
import type { ComplianceFrameworkSection, FrameworkCoverage, ReportModel } from '../model.js';
import { asrByCategoryChart } from './asr-by-category.js';
import { attackEffectivenessChart } from './attack-effectiveness.js';
import type { ChartDefinition, Labeler } from './chart.js';
import { complianceCoverageChart } from './compliance-coverage.js';
import { complianceHeatmapChart } from './compliance-heatmap.js';
import { complianceStatesChart } from './compliance-states.js';
import {
  portfolioAsrTrendChart,
  portfolioCoverageChart,
  portfolioFindingsChart,
  portfolioRiskChart,
} from './portfolio.js';
import { riskByDomainChart } from './risk-by-domain.js';
import { riskTrendChart } from './risk-trend.js';
import { severityDistributionChart } from './severity-distribution.js';
import { transformLiftChart } from './transform-lift.js';

/** File-safe chart name for a framework's heatmap; frameworks are data, so only [a-z0-9-] survive. */
export function heatmapChartName(section: ComplianceFrameworkSection, index: number): string {
  const slug = section.framework
    .toLowerCase()
    .replace(/[^a-z0-9]+/gu, '-')
    .replace(/^-|-$/gu, '')
    .slice(0, 40);
  return `compliance-heatmap-${index + 1}${slug ? `-${slug}` : ''}`;
}

function coverageRows(sections: readonly ComplianceFrameworkSection[]): FrameworkCoverage[] {
  return sections.map((section) => {
    const counts = countCategoriesByState(section.categories);
    return {
      framework: section.framework,
      title: section.title,
      coveragePct: section.coverage,
      testedCategories: section.testedCategories,
      totalCategories: section.totalCategories,
      failing: counts.failing,
      passing: counts.passing,
      insufficientEvidence: counts.insufficient_evidence,
      untested: counts.not_tested,
    };
  });
}

/** Every chart of a report, including those without data (the renderer leaves those out). */
export function chartsForModel(model: ReportModel, label: Labeler): ChartDefinition[] {
  switch (model.kind) {
    case 'executive':
      return [
        riskTrendChart(model.riskTrend, label),
        severityDistributionChart(model.kpis.findingsBySeverity),
        asrByCategoryChart(model.asrByCategory.rows, label),
        attackEffectivenessChart(model.attackEffectiveness, label),
        transformLiftChart(model.transformLift.rows, label),
        complianceCoverageChart(model.complianceCoverage, label),
        riskByDomainChart(model.riskByDomain, label),
      ];
    case 'compliance':
      return [
        complianceCoverageChart(coverageRows(model.frameworks), label),
        complianceStatesChart(model.frameworks, label),
        ...model.frameworks.map((section, index) =>
          complianceHeatmapChart(section, heatmapChartName(section, index), label),
        ),
      ];
    case 'portfolio':
      return [
        portfolioRiskChart(model, label),
        portfolioFindingsChart(model, label),
        portfolioCoverageChart(model, label),
        portfolioAsrTrendChart(model, label),
      ];
  }
}

/** True when the spec has data points to draw. */
export function chartHasData(chart: ChartDefinition): boolean {
  const data = (chart.spec as { data?: { values?: unknown } }).data;
  return Array.isArray(data?.values) && data.values.length > 0;
}
