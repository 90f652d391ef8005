/**
 * The short written summary at the top of each report, generated from the numbers only: the same
 * model always gives the same sentences. Values from the data (attack, category and project names)
 * are kept as `data` parts so the renderer escapes them for the output context; only our own wording
 * is `text`.
 */
import { formatCount, formatDecimal, formatLift, formatPercent, riskBand } from './format.js';
import type {
  ComplianceFrameworkSection,
  ExecutiveModel,
  Exclusion,
  FrameworkCoverage,
  PortfolioModel,
  Sentence,
  SentencePart,
} from './model.js';

const text = (value: string): SentencePart => ({ kind: 'text', value });
const data = (value: string): SentencePart => ({ kind: 'data', value });

function plural(count: number, one: string, many: string): string {
  return `${formatCount(count)} ${count === 1 ? one : many}`;
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
      `Figures exclude ${plural(exclusion.assessments.length, 'assessment', 'assessments')} with erroneous `,
    ),
    data(exclusion.field),
    text(' (see Data quality).'),
  ]);
}

function worstCoverage(coverage: readonly FrameworkCoverage[]): FrameworkCoverage | undefined {
  return coverage
    .filter((row) => row.coveragePct !== null)
    .reduce<FrameworkCoverage | undefined>(
      (worst, row) =>
        worst === undefined || (row.coveragePct ?? 0) < (worst.coveragePct ?? 0) ? row : worst,
      undefined,
    );
}

/** Sentences for an executive report (everything but `summary` must be filled in). */
export function executiveNarrative(model: Omit<ExecutiveModel, 'summary'>): Sentence[] {
  const { kpis } = model;
  const sentences: Sentence[] = [postureSentence(kpis.riskScore, kpis.riskLevel, 'Overall')];

  sentences.push([
    text(
      `The project had ${kpis.assessments === null ? 'an unknown number of' : formatCount(kpis.assessments)} ` +
        `assessments with ${formatCount(kpis.attacks)} attacks and ${formatCount(kpis.trials)} trials; ` +
        `the overall attack success rate (ASR) is ${formatPercent(kpis.overallAsr)}.`,
    ),
  ]);

  const critical = kpis.findingsBySeverity.critical;
  const high = kpis.findingsBySeverity.high;
  if (critical === null || high === null) {
    sentences.push([text('The number of critical and high-severity findings is unknown.')]);
  } else if (critical + high === 0) {
    sentences.push([text('No critical or high-severity findings were recorded.')]);
  } else {
    sentences.push([
      text(
        `There ${critical === 1 ? 'is' : 'are'} ${plural(critical, 'critical finding', 'critical findings')} ` +
          `and ${plural(high, 'high-severity finding', 'high-severity findings')}.`,
      ),
    ]);
  }

  const attack = [...model.attackEffectiveness]
    .filter((row) => row.successRate !== null)
    .sort((a, b) => (b.successRate ?? 0) - (a.successRate ?? 0) || (a.attack < b.attack ? -1 : 1))[0];
  const transform = [...model.transformLift.rows]
    .filter((row) => row.lift !== null)
    .sort((a, b) => (b.lift ?? 0) - (a.lift ?? 0) || (a.transform < b.transform ? -1 : 1))[0];
  if (attack) {
    const sentence: SentencePart[] = [
      text('The most effective attack was '),
      data(attack.attack),
      text(` (success rate ${formatPercent(attack.successRate)})`),
    ];
    if (transform) {
      sentence.push(
        text('; the transform with the largest lift over baseline was '),
        data(transform.transform),
        text(` (${formatLift(transform.lift)})`),
      );
    }
    sentence.push(text('.'));
    sentences.push(sentence);
  }

  const worst = model.asrByCategory.rows.find((row) => row.asr !== null);
  if (worst) {
    sentences.push([
      text('The weakest goal category is '),
      data(worst.category),
      text(` with an ASR of ${formatPercent(worst.asr)}.`),
    ]);
  }

  const coverage = worstCoverage(model.complianceCoverage);
  if (coverage) {
    sentences.push([
      text('Lowest compliance coverage: '),
      data(coverage.title),
      text(
        ` at ${formatPercent(coverage.coveragePct)}` +
          (coverage.testedCategories !== null && coverage.totalCategories !== null
            ? ` (${formatCount(coverage.testedCategories)} of ${formatCount(coverage.totalCategories)} categories tested).`
            : '.'),
      ),
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
    const count = (state: string): number => section.categories.filter((row) => row.state === state).length;
    return [
      data(section.title),
      text(
        `: ${formatCount(section.testedCategories)} of ${formatCount(section.totalCategories)} categories tested ` +
          `(coverage ${formatPercent(section.coverage)}); ${formatCount(count('failing'))} failing, ` +
          `${formatCount(count('passing'))} passing, ${formatCount(count('insufficient_evidence'))} with ` +
          `insufficient evidence, ${formatCount(count('not_tested'))} not tested.`,
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
    [text(`The portfolio covers ${plural(projects.length, 'project', 'projects')}.`)],
  ];
  const riskiest = [...projects]
    .filter((row) => row.riskScore !== null)
    .sort((a, b) => (b.riskScore ?? 0) - (a.riskScore ?? 0) || (a.project.key < b.project.key ? -1 : 1))[0];
  if (riskiest) {
    sentences.push([
      text('Highest risk: '),
      data(riskiest.project.name ?? riskiest.project.key),
      text(
        ` (risk score ${formatDecimal(riskiest.riskScore, 1)} of 10, ${riskBand(riskiest.riskScore) ?? 'unknown'}).`,
      ),
    ]);
  }
  const critical = projects.map((row) => row.findingsBySeverity.critical);
  if (critical.length > 0) {
    const known = critical.filter((value): value is number => value !== null);
    const total = known.reduce((sum, value) => sum + value, 0);
    sentences.push([
      text(
        known.length === critical.length
          ? `Across projects there are ${plural(total, 'critical finding', 'critical findings')}.`
          : `Across projects with known counts there are ${plural(total, 'critical finding', 'critical findings')}; ` +
              `${plural(critical.length - known.length, 'project has', 'projects have')} no known count.`,
      ),
    ]);
  }
  return sentences;
}
