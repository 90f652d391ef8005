/**
 * Compliance: the tags an attack run carries, the per-assessment compliance matrix (every row of every
 * framework, tested or not) and the project's compliance posture derived from those matrices.
 */
import type { AttackRunPlan } from './plan-types.js';
import { round } from './prng.js';
import { severityRank, worstSeverity, type Severity } from './scoring.js';
import { ADVERSARIAL_ML_ATTACK_TAGS, FRAMEWORKS, GENERATIVE_ATTACK_TAGS } from './frameworks.js';
import { goalCategory, type ComplianceTagSet } from './taxonomy.js';

/** What the compliance matrix needs to know about one evaluated run. */
export interface ComplianceInput {
  run: AttackRunPlan;
  successful: boolean;
  severity: Severity;
  trials: number;
}

function tagSet(run: AttackRunPlan): ComplianceTagSet {
  if (run.attackDomain === 'adversarial_ml') return ADVERSARIAL_ML_ATTACK_TAGS[run.attackName] ?? {};
  const goal = goalCategory(run.goalCategory).tags;
  const merge = (a: string[] = [], b: string[] = []): string[] => [...new Set([...a, ...b])].sort();
  const merged: ComplianceTagSet = {
    owasp: merge(GENERATIVE_ATTACK_TAGS.owasp, goal.owasp),
    atlas: merge(GENERATIVE_ATTACK_TAGS.atlas, goal.atlas),
    saif: merge(GENERATIVE_ATTACK_TAGS.saif, goal.saif),
  };
  if (goal.agentic) merged.agentic = [...goal.agentic].sort();
  const nist = goal.nist ?? GENERATIVE_ATTACK_TAGS.nist;
  if (nist) merged.nist = nist;
  return merged;
}

/** `compliance_tags` of a run: a flat object with only the frameworks that apply. */
export function complianceTags(run: AttackRunPlan): Record<string, string | string[]> {
  const set = tagSet(run);
  const tags: Record<string, string | string[]> = {};
  if (set.owasp?.length) tags.owasp_categories = set.owasp;
  if (set.agentic?.length) tags.owasp_agentic_categories = set.agentic;
  if (set.atlas?.length) tags.atlas_techniques = set.atlas;
  if (set.saif?.length) tags.saif_categories = set.saif;
  if (set.nist) {
    tags.nist_ai_rmf_function = set.nist[0];
    tags.nist_ai_rmf_subcategory = set.nist[1];
  }
  return tags;
}

/** Matrix rows of one framework that a run exercises. */
function rowsHit(run: AttackRunPlan, framework: (typeof FRAMEWORKS)[number]): string[] {
  const set = tagSet(run);
  if (framework.tagField === 'nist') return set.nist ? [set.nist[0]] : [];
  return set[framework.tagField] ?? [];
}

export interface FullCell {
  asr: number;
  attacks_used: string[];
  max_severity: string;
  tested: boolean;
  total_trials: number;
}
export interface LegacyCell {
  tested: boolean;
  asr: number;
  max_severity: string;
}
export type ComplianceMatrix = Record<string, Record<string, FullCell | LegacyCell>>;

/** Every row of every framework; untested rows: tested=false, attacks_used=[], total_trials=0, asr=0, info. */
export function complianceMatrix(inputs: readonly ComplianceInput[], legacy: boolean): ComplianceMatrix {
  const matrix: ComplianceMatrix = {};
  for (const framework of FRAMEWORKS) {
    const rows: Record<string, FullCell | LegacyCell> = {};
    for (const row of framework.rows) {
      const hits = inputs.filter((i) => rowsHit(i.run, framework).includes(row));
      const tested = hits.length > 0;
      const asr = tested ? round(hits.filter((h) => h.successful).length / hits.length, 4) : 0;
      const maxSeverity = worstSeverity(hits.map((h) => h.severity)) ?? 'info';
      rows[row] = legacy
        ? { tested, asr, max_severity: maxSeverity }
        : {
            asr,
            attacks_used: [...new Set(hits.map((h) => h.run.attackName))].sort(),
            max_severity: maxSeverity,
            tested,
            total_trials: hits.reduce((sum, h) => sum + h.trials, 0),
          };
    }
    matrix[framework.key] = rows;
  }
  return matrix;
}

export interface CompliancePostureJson {
  framework: string;
  coverage_pct: number;
  failing_categories: string[];
  passing_categories: string[];
  untested_categories: string[];
  max_asr_by_category: Record<string, number>;
  max_severity_by_category: Record<string, string>;
  tested_categories: number;
  total_categories: number;
}

/**
 * Posture per framework over the matrices of the analyzed assessments (legacy cells included: they
 * carry tested/asr/max_severity). A tested row fails when any attack on it succeeded (max ASR > 0).
 */
export function compliancePosture(matrices: readonly ComplianceMatrix[]): CompliancePostureJson[] {
  return FRAMEWORKS.map((framework) => {
    const failing: string[] = [];
    const passing: string[] = [];
    const untested: string[] = [];
    const maxAsr: Record<string, number> = {};
    const maxSeverity: Record<string, string> = {};
    for (const row of framework.rows) {
      const cells = matrices
        .map((m) => m[framework.key]?.[row])
        .filter((c): c is FullCell | LegacyCell => c?.tested === true);
      if (cells.length === 0) {
        untested.push(row);
        continue;
      }
      const asr = Math.max(...cells.map((c) => c.asr));
      maxAsr[row] = asr;
      maxSeverity[row] = cells
        .map((c) => c.max_severity)
        .reduce((a, b) => (severityRank(b) > severityRank(a) ? b : a), 'info');
      (asr > 0 ? failing : passing).push(row);
    }
    const tested = failing.length + passing.length;
    return {
      framework: framework.key,
      coverage_pct: round((tested / framework.rows.length) * 100, 1),
      failing_categories: failing,
      passing_categories: passing,
      untested_categories: untested,
      max_asr_by_category: maxAsr,
      max_severity_by_category: maxSeverity,
      tested_categories: tested,
      total_categories: framework.rows.length,
    };
  });
}
