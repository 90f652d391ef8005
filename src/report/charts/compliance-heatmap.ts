/**
 * Category × assessment ASR for one framework (compliance). A cell with unknown ASR (not tested, or
 * excluded by an analytics warning) is not drawn: the grey plot background shows through, never a 0.
 */
import { categoryLabel } from '../../taxonomy/frameworks.js';
import type { ComplianceFrameworkSection } from '../model.js';
import { baseSpec, distinctLabels, GRID_CONFIG, type ChartDefinition, type Labeler } from './chart.js';

/** Above this many assessments the x-axis labels are hidden (they would overlap). */
const MAX_LABELLED_ASSESSMENTS = 30;

export function complianceHeatmapChart(
  section: ComplianceFrameworkSection,
  name: string,
  label: Labeler,
): ChartDefinition {
  const assessments = section.heatmap.assessments;
  const columns = distinctLabels(assessments.map((assessment) => label(assessment.name ?? assessment.id)));
  const columnOf = new Map(assessments.map((assessment, index) => [assessment.id, columns[index] ?? '']));
  const rows = distinctLabels(
    section.categories.map((category) =>
      label(categoryLabel(section.framework, category.tag, category.title)),
    ),
  );
  const rowOf = new Map(section.categories.map((category, index) => [category.tag, rows[index] ?? '']));
  const values = section.heatmap.cells
    .filter((cell) => cell.asr !== null && columnOf.has(cell.assessmentId) && rowOf.has(cell.tag))
    .map((cell) => ({
      assessment: columnOf.get(cell.assessmentId),
      category: rowOf.get(cell.tag),
      asr: cell.asr,
    }));
  const labelled = assessments.length <= MAX_LABELLED_ASSESSMENTS;
  return {
    name,
    title: `${label(section.title)}: ASR by category and assessment`,
    spec: {
      ...baseSpec(GRID_CONFIG),
      height: { step: 16 },
      data: { values },
      // Per-cell aria labels repeat the assessment name; on big grids they would dominate the file size.
      mark: { type: 'rect', stroke: '#ffffff', strokeWidth: 0.5, aria: labelled },
      encoding: {
        x: {
          field: 'assessment',
          type: 'nominal',
          sort: columns,
          scale: { domain: columns },
          axis: labelled
            ? { title: 'Assessments, oldest to newest', labelAngle: -40, labelLimit: 140 }
            : { title: `${assessments.length} assessments, oldest to newest`, labels: false, ticks: false },
        },
        y: { field: 'category', type: 'nominal', sort: rows, scale: { domain: rows }, axis: { title: null } },
        color: {
          field: 'asr',
          type: 'quantitative',
          scale: { domain: [0, 1], range: ['#fff1ec', '#a61e1e'] },
          legend: { title: 'ASR', format: '.0%', orient: 'right' },
        },
      },
    },
  };
}
