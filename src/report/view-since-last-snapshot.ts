/**
 * The "Since last snapshot" part of the executive template view (see view.ts): figures formatted as
 * our own ASCII text, data text (attack names, categories, goals, snapshot ids, keys) shaped and
 * escaped for the output format. Unknown values are "—", never 0. Findings the diff could not compare
 * (severity unknown) and a project it did not compare (a partial snapshot lacks it) are said in words,
 * so zero counts never read as "nothing changed" when the change is unknown.
 */
import {
  changeDigits,
  formatDateTime,
  formatDecimal,
  formatLift,
  formatPercent,
  formatSignedDecimal,
} from './format.js';
import type { MetricChange, NotComparableFindings, NotComparedProject, SinceLastSnapshot } from './model.js';
import { Escaped } from './output-context.js';
import { severityClass, type ViewText } from './view-text.js';

/** An empty key list: our word, not "—" (that nothing was added is known, not unknown). */
const NO_KEYS = 'none';

/**
 * How a kind of figure is shown: its value and its change at a number of decimals, and a value in the
 * units it is shown in (percent for a fraction and its points), on which the decimals are chosen.
 */
interface FigureFormat {
  value: (value: number | null, digits: number) => string;
  change: (value: number | null, digits: number) => string;
  shown: (value: number | null) => number | null;
  digits: number;
}

/** A fraction 0–1 as a percentage, its change in percentage points. */
const percent: FigureFormat = {
  value: formatPercent,
  change: formatLift,
  shown: (value) => (value === null ? null : value * 100),
  digits: 1,
};
/** A risk score 0–10, its change signed. */
const risk: FigureFormat = {
  value: formatDecimal,
  change: formatSignedDecimal,
  shown: (value) => value,
  digits: 1,
};

/**
 * A metric row: before, after and change as display text; a one-sided figure says which side. The
 * three share one precision (changeDigits), so they never contradict each other: risk 8.11 → 8.06
 * reads "8.11 → 8.06, -0.05", never "8.1 → 8.1, -0.1".
 */
function metricRow(metric: MetricChange, format: FigureFormat) {
  const digits = changeDigits(
    format.shown(metric.before),
    format.shown(metric.after),
    format.shown(metric.delta),
    format.digits,
  );
  return {
    before: format.value(metric.before, digits),
    after: format.value(metric.after, digits),
    change:
      metric.presence === 'added'
        ? 'not in previous snapshot'
        : metric.presence === 'removed'
          ? 'not in this snapshot'
          : format.change(metric.delta, digits),
    direction: metric.delta === null || metric.delta === 0 ? 'flat' : metric.delta > 0 ? 'up' : 'down',
  };
}

/** Known on both sides and equal: a table of changes counts it instead of listing it. */
function unchanged(metric: MetricChange): boolean {
  return metric.presence === 'both' && metric.delta === 0;
}

function keyList(text: ViewText, keys: readonly string[]): Escaped | null {
  return keys.length === 0 ? null : new Escaped(keys.map((key) => text.code(key).value).join(', '));
}

/** Which snapshot of the comparison, in our words. */
const SIDE_WORDS = { previous: 'the previous snapshot', current: "this report's snapshot" } as const;

/**
 * Why the project was not compared, for the section and the brief: the partial snapshot (as code), in
 * words which one it is, and its failed requests (`GET /path` as code, then `(HTTP 500)`). Null when
 * the project was compared.
 */
export function notComparedView(notCompared: NotComparedProject | null | undefined, text: ViewText) {
  if (notCompared === null || notCompared === undefined) return null;
  const { context } = text;
  const requests = notCompared.failedRequests.map(
    (request) =>
      `${text.code(`${request.method} ${request.path}`).value} ` +
      context.own(request.status === null ? '(no response)' : `(HTTP ${request.status})`),
  );
  return {
    snapshotId: text.code(notCompared.snapshotId),
    side: new Escaped(context.own(SIDE_WORDS[notCompared.side])),
    failedRequests: requests.length === 0 ? null : new Escaped(requests.join(', ')),
  };
}

/**
 * The findings no count holds because their severity is unknown: how many, where (in our words) and
 * the assessments with such runs. Null when there are none (or the model does not say).
 */
export function notComparableView(notComparable: NotComparableFindings | undefined, text: ViewText) {
  if (notComparable === undefined || notComparable.total === 0) return null;
  const { previous, current, both } = notComparable.unknownIn;
  const where =
    previous === notComparable.total
      ? 'in the previous snapshot'
      : current === notComparable.total
        ? `in ${SIDE_WORDS.current}`
        : both === notComparable.total
          ? 'in both snapshots'
          : 'in one snapshot or both';
  return {
    count: notComparable.total,
    where: new Escaped(text.context.own(where)),
    assessments: keyList(text, notComparable.assessments),
  };
}

/** The section's view, or null when the model has none (no previous snapshot: nothing is shown). */
export function sinceLastSnapshotView(section: SinceLastSnapshot | null | undefined, text: ViewText) {
  if (section === null || section === undefined) return null;
  const { counts } = section;
  return {
    previous: {
      snapshotId: text.code(section.previous.snapshotId),
      fetchedAt: formatDateTime(section.previous.fetchedAt),
    },
    current: {
      snapshotId: text.code(section.current.snapshotId),
      fetchedAt: formatDateTime(section.current.fetchedAt),
    },
    counts,
    notCompared: notComparedView(section.notCompared, text),
    notComparable: notComparableView(section.notComparable, text),
    changedFindings: section.changedFindings.map((finding) => ({
      change: finding.change,
      severity: text.label(finding.severity),
      severityClass: severityClass(finding.severity),
      attack: text.label(finding.attack),
      goalCategory: text.maybeLabel(finding.goalCategory),
      goal: text.excerpt(finding.goal),
      scoreBefore: finding.scoreBefore,
      scoreAfter: finding.scoreAfter,
      reasons: finding.reasons.length === 0 ? null : text.label(finding.reasons.join('; ')),
    })),
    noChangedFindings: section.changedFindingsTotal === 0,
    changedFindingsShown: section.changedFindings.length,
    changedFindingsTotal: section.changedFindingsTotal,
    moreChangedFindings: section.changedFindingsTotal > section.changedFindings.length,
    unknownFindings:
      section.unknownFindingAssessments.length === 0
        ? null
        : {
            count: section.unknownFindingAssessments.length,
            assessments: keyList(text, section.unknownFindingAssessments),
          },
    overall: [
      { label: 'Overall ASR', ...metricRow(section.overallAsr, percent) },
      { label: 'Risk score (0–10)', ...metricRow(section.riskScore, risk) },
    ],
    categoryAsr: section.categoryAsr
      .filter((metric) => !unchanged(metric))
      .map((metric) => ({ category: text.label(metric.key), ...metricRow(metric, percent) })),
    moreCategories: Math.max(0, section.categoryAsrTotal - section.categoryAsr.length),
    unchangedCategories: section.categoryAsr.filter(unchanged).length,
    coverage: section.coverage
      .filter((metric) => !unchanged(metric))
      .map((metric) => ({ title: text.label(metric.title), ...metricRow(metric, percent) })),
    unchangedCoverage: section.coverage.filter(unchanged).length,
    evaluationPassRates: section.evaluationPassRates
      .filter((metric) => !unchanged(metric))
      .map((metric) => ({ job: text.label(metric.key), ...metricRow(metric, percent) })),
    unchangedPassRates: section.evaluationPassRates.filter(unchanged).length,
    schemaDrift: section.schemaDrift.map((change) => ({
      fileKind: text.code(change.fileKind),
      added: keyList(text, change.added) ?? NO_KEYS,
      removed: keyList(text, change.removed) ?? NO_KEYS,
    })),
  };
}
