/** Categories per state (failing, insufficient evidence, not tested, passing) for each framework (compliance). */
import { COMPLIANCE_STATES, type ComplianceFrameworkSection } from '../model.js';
import { baseSpec, STATE_COLORS, type ChartDefinition, type Labeler } from './chart.js';

export const STATE_LABELS = {
  failing: 'failing',
  insufficient_evidence: 'insufficient evidence',
  not_tested: 'not tested',
  passing: 'passing',
} as const;

export function complianceStatesChart(
  sections: readonly ComplianceFrameworkSection[],
  label: Labeler,
): ChartDefinition {
  const values = sections.flatMap((section) =>
    COMPLIANCE_STATES.map((state, order) => ({
      framework: label(section.title),
      state: STATE_LABELS[state],
      order,
      categories: section.categories.filter((category) => category.state === state).length,
    })).filter((row) => row.categories > 0),
  );
  return {
    name: 'compliance-states',
    title: 'Categories by state',
    spec: {
      ...baseSpec(),
      height: { step: 24 },
      data: { values },
      mark: { type: 'bar' },
      encoding: {
        y: { field: 'framework', type: 'nominal', sort: null, axis: { title: null } },
        x: {
          field: 'categories',
          type: 'quantitative',
          stack: 'zero',
          axis: { title: 'Categories', tickMinStep: 1 },
        },
        color: {
          field: 'state',
          type: 'nominal',
          scale: {
            domain: COMPLIANCE_STATES.map((state) => STATE_LABELS[state]),
            range: COMPLIANCE_STATES.map((state) => STATE_COLORS[state]),
          },
          legend: { title: null },
        },
        order: { field: 'order', type: 'quantitative' },
      },
    },
  };
}
