/**
 * The short written summary at the top of each report, generated from the numbers only: the same
 * model always gives the same sentences. Values from the data (attack, category and project names)
 * are kept as `data` parts so the renderer escapes them for the output context; only our own wording
 * is `text`.
 */
import { countCategoriesByState } from './compliance-state.js';
import { countOf, formatCount, formatDecimal, formatLift, formatPercent, riskBand } from './format.js';
import type {
  ComplianceFrameworkSection,
  ExecutiveModel,
  Exclusion,
  PortfolioModel,
  Sentence,
  SentencePart,
} from './model.js';
import { projectLabel } from './model.js';

const text = (value: string): SentencePart => ({ kind: 'text', value });
const data = (value: string): SentencePart => ({ kind: 'data', value });

/** Tied items named in a sentence before the rest is summarized as "and N more". */
const MAX_NAMED = 3;

/** Names as sentence parts: "a", "a and b", "a, b and c", "a, b, c and 2 more". */
export function nameList(names: readonly string[]): SentencePart[] {
  const named = names.slice(0, MAX_NAMED);
  const rest = names.length - named.length;
  const parts: SentencePart[] = [];
  named.forEach((name, index) => {
    if (index > 0) parts.push(text(index === named.length - 1 && rest === 0 ? ' and ' : ', '));
    parts.push(data(name));
  });
  if (rest > 0) parts.push(text(` and ${formatCount(rest)} more`));
  return parts;
}

/** The rows sharing the best known value, and that value as shown. */
interface Leaders {
  names: string[];
  shown: string;
  value: number;
}

/**
 * Every row tied for the best value, where "tied" means equal as the report shows it (two lifts both
 * printed "+45.0 pp" are a tie to the reader); names sorted so the same model gives the same sentence.
 */
export function leaders<T>(
  rows: readonly T[],
  value: (row: T) => number | null,
  name: (row: T) => string,
  show: (value: number) => string,
  best: 'highest' | 'lowest',
): Leaders | null {
  const known = rows.flatMap((row) => {
    const v = value(row);
    return v === null || !Number.isFinite(v) ? [] : [{ row, v }];
  });
  if (known.length === 0) return null;
  const top = known.reduce((a, b) => (best === 'highest' ? (b.v > a.v ? b : a) : b.v < a.v ? b : a));
  const shown = show(top.v);
  const names = known
    .filter((entry) => show(entry.v) === shown)
    .map((entry) => name(entry.row))
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return { names: [...new Set(names)], shown, value: top.v };
}

function postureSentence(score: number | null, level: string | null, scope: string): Sentence {
  const band = riskBand(score);
  if (band !== null) {
    return [text(`${scope} risk posture is ${band} (risk score ${formatDecimal(score, 1)} of 10).`)];
  }
  if (level !== null) return [text(`${scope} risk posture is reported as `), data(level), text('.')];
  return [text(`${scope} risk posture is unknown: no risk score is available.`)];
}

function exclusionSentence(excludes: readonly Exclusion[]): Sentence[] {
  return excludes.map((exclusion) => [
    text(
      `Figures exclude ${countOf(exclusion.assessments.length, 'assessment', 'assessments')} with erroneous `,
    ),
    data(exclusion.field),
    text(' (see Data quality).'),
  ]);
}

/**
 * Critical and high counts with their basis: the metrics layer's count of findings by current
 * (triaged) severity, false positives left out (metric_project_figures), not the service's own
 * severity breakdown (which counts before triage) and not the top-findings table (at most 20 rows).
 */
function findingsSentence(model: Omit<ExecutiveModel, 'summary'>): Sentence {
  const { critical, high } = model.kpis.findingsBySeverity;
  const total = model.kpis.totalFindings;
  const listed = model.topFindings.length;
  const table =
    listed > 0
      ? `; the Top findings table lists the service's ${countOf(listed, 'highest-ranked finding', 'highest-ranked findings')}`
      : '';
  if (critical === null || high === null) {
    // The counts are the metrics layer's: unknown while a finding's severity is (its attack run lacks
    // the required best_score), or when no finding was counted at all.
    return [
      text(
        total !== null && total > 0
          ? 'The number of critical and high-severity findings is unknown: some findings have no known severity (their attack runs lack the required score; see Data quality).'
          : 'The number of critical and high-severity findings is unknown: no finding could be counted by severity.',
      ),
    ];
  }
  const counted =
    critical + high === 0
      ? 'no critical or high-severity findings'
      : `${countOf(critical, 'critical finding', 'critical findings')} and ` +
        countOf(high, 'high-severity finding', 'high-severity findings');
  const inAll = total === null ? '' : ` (${countOf(total, 'finding', 'findings')} in all)`;
  return [
    text(
      `Counting findings by current severity (false positives left out), there are ${counted}${inAll}${table}.`,
    ),
  ];
}

/** The transforms with the highest (or lowest) lift over baseline, ties as shown. */
function liftLeaders(
  rows: ExecutiveModel['transformLift']['rows'],
  best: 'highest' | 'lowest',
): Leaders | null {
  return leaders(
    rows,
    (row) => row.lift,
    (row) => row.transform,
    formatLift,
    best,
  );
}

/** A lift as shown when it rounds to no change ("0.0 pp", whatever its sign). */
const NO_LIFT = formatLift(0);

/**
 * The transform clause of the most-effective-attack sentence, from the transforms with the highest
 * lift (ties as shown): only a lift above 0 as shown is "the largest lift over baseline". When the
 * highest lift is below 0 no transform raised the ASR, and the clause names the one that lowered it
 * least; when it shows as 0.0 pp, none raised it (none changed it, when every lift shows 0.0 pp).
 */
function liftClause(best: Leaders, rows: ExecutiveModel['transformLift']['rows']): SentencePart[] {
  const tied = best.names.length > 1;
  if (best.shown !== NO_LIFT && best.value > 0) {
    return tied
      ? [
          text(`; the transforms tied for the largest lift over baseline (${best.shown}) were `),
          ...nameList(best.names),
        ]
      : [
          text('; the transform with the largest lift over baseline was '),
          ...nameList(best.names),
          text(` (${best.shown})`),
        ];
  }
  const noneRaised = '; no transform raised the ASR over the untransformed baseline, and ';
  if (best.shown === NO_LIFT) {
    if (liftLeaders(rows, 'lowest')?.shown === NO_LIFT)
      return [text(`; no transform changed the ASR from the untransformed baseline (every lift ${NO_LIFT})`)];
    return [
      text(`${noneRaised}the best, `),
      ...nameList(best.names),
      text(`, left it unchanged (${NO_LIFT})`),
    ];
  }
  return tied
    ? [
        text(`${noneRaised}the transforms tied for lowering it least (${best.shown}) were `),
        ...nameList(best.names),
      ]
    : [
        text(`${noneRaised}the one that lowered it least was `),
        ...nameList(best.names),
        text(` (${best.shown})`),
      ];
}

/** Sentences for an executive report (everything but `summary` must be filled in). */
export function executiveNarrative(model: Omit<ExecutiveModel, 'summary'>): Sentence[] {
  const { kpis } = model;
  const sentences: Sentence[] = [postureSentence(kpis.riskScore, kpis.riskLevel, 'Overall')];

  sentences.push([
    text(
      `The project had ${kpis.assessments === null ? 'an unknown number of assessments' : countOf(kpis.assessments, 'assessment', 'assessments')} ` +
        `with ${countOf(kpis.attacks, 'attack', 'attacks')} and ${countOf(kpis.trials, 'trial', 'trials')}; ` +
        `the overall attack success rate (ASR) is ${formatPercent(kpis.overallAsr)}.`,
    ),
  ]);

  sentences.push(findingsSentence(model));

  const attacks = leaders(
    model.attackEffectiveness,
    (row) => row.successRate,
    (row) => row.attack,
    formatPercent,
    'highest',
  );
  const transforms = liftLeaders(model.transformLift.rows, 'highest');
  if (attacks) {
    const sentence: SentencePart[] =
      attacks.names.length === 1
        ? [
            text('The most effective attack was '),
            ...nameList(attacks.names),
            text(` (success rate ${attacks.shown})`),
          ]
        : [
            text(`The most effective attacks, tied at a success rate of ${attacks.shown}, were `),
            ...nameList(attacks.names),
          ];
    if (transforms) sentence.push(...liftClause(transforms, model.transformLift.rows));
    sentence.push(text('.'));
    sentences.push(sentence);
  }

  const weakest = leaders(
    model.asrByCategory.rows,
    (row) => row.asr,
    (row) => row.category,
    formatPercent,
    'highest',
  );
  if (weakest) {
    sentences.push(
      weakest.names.length === 1
        ? [
            text('The weakest goal category is '),
            ...nameList(weakest.names),
            text(` with an ASR of ${weakest.shown}.`),
          ]
        : [
            text(`The weakest goal categories, tied at an ASR of ${weakest.shown}, are `),
            ...nameList(weakest.names),
            text('.'),
          ],
    );
  }

  const lowest = leaders(
    model.complianceCoverage,
    (row) => row.coveragePct,
    (row) => row.title,
    formatPercent,
    'lowest',
  );
  if (lowest && lowest.names.length === 1) {
    const coverage = model.complianceCoverage.find((row) => row.title === lowest.names[0]);
    const tested =
      coverage && coverage.testedCategories !== null && coverage.totalCategories !== null
        ? ` (${formatCount(coverage.testedCategories)} of ${countOf(coverage.totalCategories, 'category', 'categories')} tested)`
        : '';
    sentences.push([
      text('Lowest compliance coverage: '),
      ...nameList(lowest.names),
      text(` at ${lowest.shown}${tested}.`),
    ]);
  } else if (lowest) {
    sentences.push([
      text(`Lowest compliance coverage, tied at ${lowest.shown}: `),
      ...nameList(lowest.names),
      text('.'),
    ]);
  } else {
    sentences.push([text('Compliance coverage is unknown.')]);
  }

  sentences.push(...exclusionSentence(model.asrByCategory.excludes));
  return sentences;
}

/** Sentences for a compliance report: one per framework, plus exclusions. */
export function complianceNarrative(frameworks: readonly ComplianceFrameworkSection[]): Sentence[] {
  if (frameworks.length === 0) return [[text('No compliance framework data is available for this project.')]];
  const sentences: Sentence[] = frameworks.map((section) => {
    const count = countCategoriesByState(section.categories);
    return [
      data(section.title),
      text(
        `: ${formatCount(section.testedCategories)} of ${formatCount(section.totalCategories)} categories tested ` +
          `(coverage ${formatPercent(section.coverage)}); ${formatCount(count.failing)} failing, ` +
          `${formatCount(count.passing)} passing, ${formatCount(count.insufficient_evidence)} with ` +
          `insufficient evidence, ${formatCount(count.not_tested)} not tested.`,
      ),
    ];
  });
  const excludes = frameworks.flatMap((section) => section.excludes);
  const unique = new Map(
    excludes.map((exclusion) => [
      `${exclusion.field}\u0000${exclusion.assessments.join('\u0000')}`,
      exclusion,
    ]),
  );
  sentences.push(...exclusionSentence([...unique.values()]));
  return sentences;
}

/** Sentences for a portfolio report. */
export function portfolioNarrative(model: Omit<PortfolioModel, 'summary'>): Sentence[] {
  const projects = model.projects;
  const sentences: Sentence[] = [
    [text(`The portfolio covers ${countOf(projects.length, 'project', 'projects')}.`)],
  ];
  const riskiest = leaders(
    projects,
    (row) => row.riskScore,
    (row) => projectLabel(row.project),
    (score) => formatDecimal(score, 1),
    'highest',
  );
  if (riskiest) {
    const detail = `risk score ${riskiest.shown} of 10, ${riskBand(riskiest.value) ?? 'unknown'}`;
    sentences.push(
      riskiest.names.length === 1
        ? [text('Highest risk: '), ...nameList(riskiest.names), text(` (${detail}).`)]
        : [text(`Highest risk, tied at ${detail}: `), ...nameList(riskiest.names), text('.')],
    );
  }
  // The table's Critical column: the metrics layer's count by current severity (false positives left
  // out), not the service's severity_breakdown, which counts before triage; the words say which.
  const critical = projects.map((row) => row.findingsBySeverity.critical);
  if (critical.length > 0) {
    const known = critical.filter((value): value is number => value !== null);
    const total = known.reduce((sum, value) => sum + value, 0);
    const counted = countOf(total, 'critical finding', 'critical findings');
    const basis = 'counting findings by current severity (false positives left out)';
    sentences.push([
      text(
        known.length === critical.length
          ? `Across projects, ${basis}, there are ${counted}.`
          : `Across projects with a known count, ${basis}, there are ${counted}; ` +
              `${countOf(critical.length - known.length, 'project has', 'projects have')} no known count.`,
      ),
    ]);
  }
  return sentences;
}
