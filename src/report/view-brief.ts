/**
 * The executive report's one-page summary (see view.ts): risk with its basis, one light per
 * framework, what changed since the last snapshot, the three things to fix first, and what the
 * figures leave out. Everything here is read from the same model the detail sections show, so the
 * page can never say something the detail does not.
 */
import { severityRank } from '../severity.js';
import type { ExecutiveModel, FrameworkCoverage, TopFinding } from './model.js';
import type { Escaped } from './output-context.js';
import { notComparableView, notComparedView } from './view-since-last-snapshot.js';
import { riskClass, severityClass, type ViewText } from './view-text.js';

/** A framework's light: a word first (colour is never the only carrier), then a CSS class. */
export type FrameworkLight = 'fail' | 'insufficient' | 'pass' | 'not-tested';

const LIGHT_WORDS: Record<FrameworkLight, string> = {
  fail: 'Fail',
  insufficient: 'Insufficient evidence',
  pass: 'Pass',
  'not-tested': 'Not tested',
};

/** The number of things the summary asks to fix first. */
export const FIX_FIRST = 3;

/**
 * One failing category fails the framework; otherwise too few trials anywhere makes it
 * insufficient; a pass needs at least one passing category and nothing worse. Unknown counts
 * (null) never pass.
 */
export function frameworkLight(row: FrameworkCoverage): FrameworkLight {
  if ((row.failing ?? 0) > 0) return 'fail';
  if ((row.insufficientEvidence ?? 0) > 0) return 'insufficient';
  if ((row.passing ?? 0) > 0 && row.failing !== null) return 'pass';
  return 'not-tested';
}

function frameworkDetail(row: FrameworkCoverage, light: FrameworkLight): string {
  const total = row.totalCategories;
  const of = (count: number | null | undefined): string =>
    total === null || count === null || count === undefined ? '—' : `${count} of ${total}`;
  switch (light) {
    case 'fail':
      return `${of(row.failing)} categories failing; ${of(row.untested)} not tested`;
    case 'insufficient':
      return `${of(row.insufficientEvidence)} categories with too few trials; ${of(row.untested)} not tested`;
    case 'pass':
      return `${of(row.passing)} categories passing; ${of(row.untested)} not tested`;
    case 'not-tested':
      return `${of(row.untested)} categories not tested`;
  }
}

/** The lowest severity "Fix first" lists: an info finding (score below 0.3) is an attack that mostly failed. */
const FIX_FIRST_FLOOR = severityRank('low');

/**
 * The first findings to fix: the service's ranking, open findings only (as the figures count them:
 * a false positive, a remediated finding or an accepted risk is nothing to fix, and the ranking is
 * the service's, which ignores triage), of severity low or worse (once the top findings are closed
 * the ranking reaches info findings, near misses, which are nothing to fix first), one per attack and
 * goal category (the same weakness found twice is one thing to fix). A finding the figures do not
 * hold (open unknown) is left out too; a severity outside the scale is shown, not guessed at.
 */
function fixFirst(findings: readonly TopFinding[]): TopFinding[] {
  const seen = new Set<string>();
  const picked: TopFinding[] = [];
  for (const finding of [...findings].sort((a, b) => a.rank - b.rank)) {
    if (finding.open !== true) continue;
    const severity = severityRank(finding.severity);
    if (severity !== 0 && severity < FIX_FIRST_FLOOR) continue;
    const key = JSON.stringify([finding.attack, finding.goalCategory]);
    if (seen.has(key)) continue;
    seen.add(key);
    picked.push(finding);
    if (picked.length === FIX_FIRST) break;
  }
  return picked;
}

export function briefView(model: ExecutiveModel, text: ViewText) {
  const { kpis } = model;
  const since = model.sinceLastSnapshot ?? null;
  const excluded = [...model.asrByCategory.excludes, ...(model.riskByDomainExcludes ?? [])];
  const excludedAssessments = new Set(excluded.flatMap((exclusion) => exclusion.assessments));
  return {
    risk: {
      score: kpis.riskScore,
      level: text.maybeLabel(kpis.riskLevel),
      riskClass: riskClass(kpis.riskScore, kpis.riskLevel),
      overallAsr: kpis.overallAsr,
      successful: kpis.overallAsrSuccessful ?? null,
      attacks: kpis.overallAsrAttacks ?? null,
      assessments: kpis.assessments,
    },
    frameworks: model.complianceCoverage.map((row) => {
      const light = frameworkLight(row);
      return {
        title: text.label(row.title),
        light,
        word: LIGHT_WORDS[light],
        detail: frameworkDetail(row, light),
      };
    }),
    changes:
      since === null
        ? null
        : {
            new: since.counts.new,
            regressed: since.counts.regressed,
            resolved: since.counts.resolved,
            previous: text.code(since.previous.snapshotId),
            // What the counts cannot say: the project not compared (partial snapshot), findings not comparable.
            notCompared: notComparedView(since.notCompared, text),
            notComparable: notComparableView(since.notComparable, text),
          },
    fixFirst: fixFirst(model.topFindings).map((finding) => ({
      severity: text.label(finding.severity),
      severityClass: severityClass(finding.severity),
      attack: text.label(finding.attack),
      goalCategory: text.maybeLabel(finding.goalCategory),
      score: finding.score,
      assessment: text.maybeLabel(finding.assessmentName),
    })),
    /**
     * Findings the service ranked: with none open at severity low or worse, "Fix first" says none of
     * them is, not that none is ranked.
     */
    ranked: model.topFindings.length,
    excludes: {
      /** Assessments an analytics warning left out of some figure, by name. */
      assessments: [...excludedAssessments].sort().map((name): Escaped => text.label(name)),
      unknownFindings: since?.unknownFindingAssessments.length ?? 0,
    },
  };
}
