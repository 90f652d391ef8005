/**
 * "Since last snapshot": a project's diff told in a few sentences for the executive report. Built as
 * the report model's own `Sentence` values — our wording as text parts, anything from the data
 * (snapshot ids, attack names, categories) as data parts — so the report's renderer escapes the data
 * for each output format as it does for every other sentence.
 */
import type { Sentence, SentencePart } from '../sentence.js';
import type { DiffSnapshotRef, ProjectDiff } from './diff-report.js';

const text = (value: string): SentencePart => ({ kind: 'text', value });
const data = (value: string): SentencePart => ({ kind: 'data', value });

/** Sentences for one project; the first starts with "Since the last snapshot". */
export function sinceLastSnapshotSentences(from: DiffSnapshotRef, project: ProjectDiff): Sentence[] {
  const { counts, findings } = project;
  const newCritical =
    findings.new.filter((f) => f.severity === 'critical').length +
    findings.regressed.filter((r) => r.to.severity === 'critical' && r.from.severity !== 'critical').length;
  const sentences: Sentence[] = [
    [
      text('Since the last snapshot ('),
      data(from.snapshot_id),
      text(
        `): ${counts.new} new, ${counts.resolved} resolved, ${counts.regressed} regressed and ` +
          `${counts.persisting} persisting findings` +
          (newCritical > 0 ? `; ${newCritical} newly critical.` : '.'),
      ),
    ],
  ];
  const asr = project.metrics.find((m) => m.group === 'overall' && m.key === 'overall_asr');
  const risk = project.metrics.find((m) => m.group === 'overall' && m.key === 'risk_score');
  if (asr && asr.from !== null && asr.to !== null) {
    const points = Math.round((asr.to - asr.from) * 1000) / 10;
    sentences.push([
      text(
        `Overall ASR went from ${percent(asr.from)} to ${percent(asr.to)} (${points > 0 ? '+' : ''}${points} points)` +
          (risk && risk.from !== null && risk.to !== null
            ? `; the risk score from ${round(risk.from)} to ${round(risk.to)}.`
            : '.'),
      ),
    ]);
  }
  const worstNew = findings.new[0];
  if (worstNew) {
    sentences.push([
      text('Worst new finding: '),
      data(worstNew.attack_name),
      text(' against '),
      data(worstNew.goal_category ?? 'an uncategorized goal'),
      text(' ('),
      data(worstNew.severity),
      text(worstNew.score === null ? ').' : `, score ${round(worstNew.score)}).`),
    ]);
  }
  const worstRegressed = findings.regressed[0];
  if (worstRegressed) {
    sentences.push([
      text('Worst regression: '),
      data(worstRegressed.to.attack_name),
      text(' against '),
      data(worstRegressed.to.goal_category ?? 'an uncategorized goal'),
      text(' ('),
      data(worstRegressed.reasons.join('; ')),
      text(').'),
    ]);
  }
  const worse = project.metrics
    .filter((m) => m.group === 'category_asr' && m.delta !== null && m.delta > 0)
    .sort((a, b) => (b.delta ?? 0) - (a.delta ?? 0) || (a.key < b.key ? -1 : 1))[0];
  if (worse && worse.from !== null && worse.to !== null) {
    sentences.push([
      text('The largest ASR increase is in '),
      data(worse.key),
      text(`: ${percent(worse.from)} to ${percent(worse.to)}.`),
    ]);
  }
  return sentences;
}

function percent(value: number): string {
  return `${Math.round(value * 1000) / 10}%`;
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}
