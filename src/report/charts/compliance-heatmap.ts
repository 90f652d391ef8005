/**
 * Category × assessment ASR for one framework (compliance). Only a tested cell with a known ASR is
 * coloured by ASR (a tested 0% is the palest red). Every other cell gets a state colour of its own,
 * listed in the legend: "not tested" (grey), "excluded (analytics warning)" and "tested, ASR unknown"
 * (legacy entries). So an untested category can never be read as a tested one at 0%, and an unknown
 * value never as 0. A tested cell shows the trials behind its ASR ("n=20"; on grids too wide for
 * that, the bare count, the chart's title saying what it is).
 */
import { categoryLabel } from '../../taxonomy/frameworks.js';
import type { ComplianceFrameworkSection } from '../model.js';
import {
  baseSpec,
  distinctLabels,
  GRID_CONFIG,
  sampleText,
  STATE_COLORS,
  type ChartDefinition,
  type Labeler,
} from './chart.js';

/** Above this many assessments the x-axis labels are hidden (they would overlap). */
const MAX_LABELLED_ASSESSMENTS = 30;

/** Up to this many assessments a cell's sample reads "n=20"; beyond, the bare count fits the cell. */
const MAX_SPELLED_SAMPLES = 15;

/** States of a cell without an ASR colour, in legend order, with their fill. */
export const HEATMAP_STATES = {
  not_tested: { label: 'not tested', fill: STATE_COLORS.not_tested },
  excluded: { label: 'excluded (analytics warning)', fill: '#dee2e6' },
  unknown: { label: 'tested, ASR unknown', fill: STATE_COLORS.insufficient_evidence },
} as const;
type CellState = keyof typeof HEATMAP_STATES;

export function complianceHeatmapChart(
  section: ComplianceFrameworkSection,
  name: string,
  label: Labeler,
): ChartDefinition {
  const assessments = section.heatmap.assessments;
  // A column with no tested cell (an assessment still pending, or one that tested nothing of this
  // framework) says so in its label, so an all-grey column is explained where it is drawn.
  const testedIds = new Set(
    section.heatmap.cells.filter((cell) => cell.tested).map((cell) => cell.assessmentId),
  );
  const columns = distinctLabels(
    assessments.map(
      (assessment) =>
        `${label(assessment.name ?? assessment.id)}${testedIds.has(assessment.id) ? '' : ' (nothing tested)'}`,
    ),
  );
  const rows = distinctLabels(
    section.categories.map((category) =>
      label(categoryLabel(section.framework, category.tag, category.title)),
    ),
  );
  // Exclusions name an assessment by its name, or its id when it has none.
  const excluded = new Set(
    section.excludes.filter((e) => e.field === 'compliance_matrix').flatMap((e) => e.assessments),
  );
  const cellOf = new Map(
    section.heatmap.cells.map((cell) => [`${cell.assessmentId}\u0000${cell.tag}`, cell]),
  );
  // One row per grid cell: an ASR (tested and known) or, with a null ASR, the state it is drawn as.
  const spelled = assessments.length <= MAX_SPELLED_SAMPLES;
  const sampleOf = (trials: number | null | undefined): string =>
    spelled ? sampleText(trials) : trials === null || trials === undefined ? '?' : String(trials);
  const values: { assessment: string; category: string; asr: number | null; state: string; n?: string }[] =
    [];
  assessments.forEach((assessment, column) => {
    section.categories.forEach((category, row) => {
      const at = { assessment: columns[column] ?? '', category: rows[row] ?? '' };
      const cell = cellOf.get(`${assessment.id}\u0000${category.tag}`);
      let state: CellState;
      if (excluded.has(assessment.name ?? assessment.id)) state = 'excluded';
      else if (cell === undefined || !cell.tested) state = 'not_tested';
      else if (cell.asr === null) state = 'unknown';
      else {
        values.push({ ...at, asr: cell.asr, state: 'tested', n: sampleOf(cell.trials) });
        return;
      }
      values.push({ ...at, asr: null, state: HEATMAP_STATES[state].label });
    });
  });
  // "not tested" is always in the legend, so a reader knows what grey means even when none is grey.
  const states = (Object.keys(HEATMAP_STATES) as CellState[]).filter(
    (state) => state === 'not_tested' || values.some((cell) => cell.state === HEATMAP_STATES[state].label),
  );
  const labelled = assessments.length <= MAX_LABELLED_ASSESSMENTS;
  // Per-cell aria labels repeat the assessment name; on big grids they would dominate the file size.
  const cellMark = { type: 'rect' as const, stroke: '#ffffff', strokeWidth: 0.5, aria: labelled };
  return {
    name,
    title: `${label(section.title)}: ASR by category and assessment${spelled ? '' : ' (numbers in cells: trials)'}`,
    spec: {
      ...baseSpec(GRID_CONFIG),
      height: { step: 16 },
      data: { values },
      encoding: {
        x: {
          field: 'assessment',
          type: 'nominal',
          sort: columns,
          scale: { domain: columns },
          axis: labelled
            ? { title: 'Assessments, oldest to newest', labelAngle: -40, labelLimit: 0 }
            : { title: `${assessments.length} assessments, oldest to newest`, labels: false, ticks: false },
        },
        y: { field: 'category', type: 'nominal', sort: rows, scale: { domain: rows }, axis: { title: null } },
      },
      layer: [
        {
          transform: [{ filter: { not: { field: 'asr', valid: true } } }],
          mark: cellMark,
          encoding: {
            fill: {
              field: 'state',
              type: 'nominal',
              scale: {
                domain: states.map((state) => HEATMAP_STATES[state].label),
                range: states.map((state) => HEATMAP_STATES[state].fill),
              },
              legend: { title: null, orient: 'bottom', direction: 'vertical', labelLimit: 0 },
            },
          },
        },
        {
          transform: [{ filter: { field: 'asr', valid: true } }],
          mark: cellMark,
          encoding: {
            fill: {
              field: 'asr',
              type: 'quantitative',
              scale: { domain: [0, 1], range: ['#fff1ec', '#a61e1e'] },
              legend: { title: 'ASR (tested)', format: '.0%', orient: 'bottom' },
            },
          },
        },
        {
          // The sample size on the cell itself, dark on pale cells and white on dark ones.
          transform: [{ filter: { field: 'asr', valid: true } }],
          mark: { type: 'text' as const, fontSize: 8, aria: false },
          encoding: {
            text: { field: 'n', type: 'nominal' },
            color: {
              condition: { test: 'datum.asr > 0.55', value: '#ffffff' },
              value: '#212529',
            },
          },
        },
      ],
      resolve: { scale: { fill: 'independent' }, legend: { fill: 'independent' } },
    },
  };
}
