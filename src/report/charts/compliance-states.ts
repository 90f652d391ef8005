/** Categories per state (failing, insufficient evidence, not tested, passing) for each framework (compliance). */
import { countCategoriesByState } from '../compliance-state.js';
import { COMPLIANCE_STATES, type ComplianceFrameworkSection } from '../model.js';
import {
  baseSpec,
  rowAxis,
  STACK_ORDER,
  stackedCountAxis,
  STATE_COLORS,
  type ChartDefinition,
  type Labeler,
} from './chart.js';

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
  const values = sections.flatMap((section) => {
    const counts = countCategoriesByState(section.categories);
    return COMPLIANCE_STATES.map((state, order) => ({
      framework: label(section.title),
      state: STATE_LABELS[state],
      order,
      categories: counts[state],
    })).filter((row) => row.categories > 0);
  });
  return {
    name: 'compliance-states',
    title: 'Categories by state',
    spec: {
      ...baseSpec(),
      height: { step: 24 },
      data: { values },
      mark: { type: 'bar' },
      encoding: {
        y: rowAxis('framework'),
        x: stackedCountAxis('categories', 'Categories'),
        color: {
          field: 'state',
          type: 'nominal',
          scale: {
            domain: COMPLIANCE_STATES.map((state) => STATE_LABELS[state]),
            range: COMPLIANCE_STATES.map((state) => STATE_COLORS[state]),
          },
          legend: { title: null },
        },
        order: STACK_ORDER,
      },
    },
  };
}
