/**
 * Readers of the metrics layer's per-domain and per-goal figures (views metric_risk_by_domain and
 * metric_goal_asr): the executive report's "Risk by domain" and "ASR by goal" tables and the JSON
 * report's goal-category ASR read them here, with the service's own value beside each as the
 * cross-check.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { ids, num, rows, str, type FigureScope } from './read-figures.js';

const WHERE = 'snapshot_id = $1 AND project_key = $2';
const params = (scope: FigureScope): string[] => [scope.snapshotId, scope.projectKey];

export interface RiskDomainFigure {
  domain: string;
  categories: string[];
  assessmentsAffected: string[];
  /** Findings by level; null (unknown) while a finding of the domain has an unknown severity. */
  critical: number | null;
  high: number | null;
  medium: number | null;
  total: number;
  /** Pooled ASR: successful / evaluated attacks of the domain. */
  avgAsr: number | null;
  numerator: number;
  denominator: number;
  maxScore: number | null;
  excluded_assessments: string[];
  service: {
    critical: number | null;
    high: number | null;
    medium: number | null;
    total: number | null;
    avgAsr: number | null;
    maxScore: number | null;
  };
}

/** Risk by domain recomputed from attack runs, most findings first. */
export async function readRiskByDomain(
  conn: DuckDBConnection,
  scope: FigureScope,
): Promise<RiskDomainFigure[]> {
  const found = await rows(
    conn,
    `SELECT * FROM metric_risk_by_domain WHERE ${WHERE}
     ORDER BY total_findings DESC, critical_findings DESC, domain`,
    params(scope),
  );
  return found.map((row) => ({
    domain: String(row.domain),
    categories: ids(row.categories),
    assessmentsAffected: ids(row.assessments_affected),
    critical: num(row.critical_findings),
    high: num(row.high_findings),
    medium: num(row.medium_findings),
    total: num(row.total_findings) ?? 0,
    avgAsr: num(row.avg_asr),
    numerator: num(row.successful_attacks) ?? 0,
    denominator: num(row.total_attacks) ?? 0,
    maxScore: num(row.max_score),
    excluded_assessments: ids(row.excluded_assessments),
    service: {
      critical: num(row.service_critical_findings),
      high: num(row.service_high_findings),
      medium: num(row.service_medium_findings),
      total: num(row.service_total_findings),
      avgAsr: num(row.service_avg_asr),
      maxScore: num(row.service_max_score),
    },
  }));
}

export interface GoalAsrFigure {
  goalCategory: string | null;
  goal: string;
  value: number | null;
  numerator: number;
  denominator: number;
  trials: number | null;
  evidence: 'measured' | 'insufficient_evidence';
  assessments: number;
  excluded_assessments: string[];
  /** The service's GoalDetail.asr, the cross-check. */
  serviceAsr: number | null;
}

/** Pooled ASR per goal, worst first (unknown last), then by category and goal text. */
export async function readGoalAsr(conn: DuckDBConnection, scope: FigureScope): Promise<GoalAsrFigure[]> {
  const found = await rows(
    conn,
    `SELECT * FROM metric_goal_asr WHERE ${WHERE}
     ORDER BY asr DESC NULLS LAST, total_attacks DESC, goal_category NULLS LAST, goal`,
    params(scope),
  );
  return found.map((row) => ({
    goalCategory: str(row.goal_category),
    goal: String(row.goal),
    value: num(row.asr),
    numerator: num(row.successful_attacks) ?? 0,
    denominator: num(row.total_attacks) ?? 0,
    trials: num(row.total_trials),
    evidence: row.evidence === 'measured' ? 'measured' : 'insufficient_evidence',
    assessments: num(row.assessments) ?? 0,
    excluded_assessments: ids(row.excluded_assessments),
    serviceAsr: num(row.service_asr),
  }));
}
