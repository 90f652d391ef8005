/**
 * The typed report models: everything a report shows, as plain data, before any formatting.
 *
 * A model is built from the warehouse (build-model.ts) or by hand (tests, benchmarks) and rendered by
 * render.ts. Strings that came from the service (names, goals, candidates, responses, notes, even
 * severities and statuses, which the API types as free strings) are kept raw here: they are
 * attacker-controlled and are sanitized, truncated, redacted and escaped only when rendered, for the
 * output context they land in.
 *
 * `null` means "unknown" (absent in an older snapshot, or excluded because of an analytics warning)
 * and is rendered as "unknown"/"—", never as 0.
 */
import type { ProjectRef, WorkspaceRef } from '../metrics/project-scope.js';
import type { Sentence } from '../sentence.js';
import { SEVERITIES } from '../severity.js';

/** The report kinds: executive, compliance and portfolio. */
export const REPORT_KINDS = ['executive', 'compliance', 'portfolio'] as const;
/** One of REPORT_KINDS. */
export type ReportKind = (typeof REPORT_KINDS)[number];

/** Severity levels, worst first (the service's scale, src/severity.ts); every severity table and chart uses this order. */
export const SEVERITY_LEVELS = SEVERITIES;
export type SeverityLevel = (typeof SEVERITY_LEVELS)[number];

/** A count per severity; `null` where the count is unknown. */
export type SeverityCounts = Record<SeverityLevel, number | null>;

// Generated sentences are a leaf type shared with the diff (src/sentence.ts).
export type { Sentence, SentencePart } from '../sentence.js';

// A project and its workspace are resolved below the reports (metrics/project-scope.ts).
export type { ProjectRef, WorkspaceRef } from '../metrics/project-scope.js';
/** `org/workspace`, the way the CLI and the reports name a workspace. */
export function workspaceLabel(ref: WorkspaceRef): string {
  return `${ref.org}/${ref.workspace}`;
}

/** The project a portfolio trend point belongs to. */
export function trendPointProject(point: PortfolioTrendPoint): ProjectRef {
  const ref: ProjectRef = { id: null, key: point.projectKey, name: point.projectName };
  if (point.workspace !== undefined) ref.workspace = point.workspace;
  return ref;
}

/** A project's display name: its name (or key), with its workspace when the database holds several. */
export function projectLabel(project: ProjectRef): string {
  const name = project.name ?? project.key;
  return project.workspace === undefined ? name : `${name} (${workspaceLabel(project.workspace)})`;
}

/** A slice of data an aggregate left out, e.g. assessments whose asr_by_category is erroneous. */
export interface Exclusion {
  /** The assessment field that was excluded, e.g. `asr_by_category`. */
  field: string;
  /** Names (or ids when unnamed) of the assessments whose slice was left out, sorted. */
  assessments: string[];
}

export interface Kpis {
  riskLevel: string | null;
  /** 0–10. */
  riskScore: number | null;
  /** Fraction 0–1: successful attacks over attacks with a result, pooled over the assessments. */
  overallAsr: number | null;
  /** The attacks behind overallAsr (shown as "60.0% (30 of 50)"); null when unknown. */
  overallAsrSuccessful?: number | null;
  overallAsrAttacks?: number | null;
  /** Findings still open after triage (not false_positive or remediated). */
  openFindings?: number | null;
  assessments: number | null;
  attacks: number | null;
  trials: number | null;
  /** Findings (attack runs) counted in `findingsBySeverity`: the same basis. */
  totalFindings: number | null;
  /**
   * Findings (one per attack run) by current severity, recomputed by the metrics layer: findings
   * triaged false_positive are left out; the one basis for every count by severity in the report.
   */
  findingsBySeverity: SeverityCounts;
  firstAssessmentAt: string | null;
  lastAssessmentAt: string | null;
}

export interface RiskTrendPoint {
  assessmentId: string;
  assessmentName: string | null;
  /** ISO date-time of the assessment. */
  date: string | null;
  riskScore: number | null;
  riskLevel: string | null;
  overallAsr: number | null;
}

export interface CategoryAsr {
  category: string;
  asr: number | null;
  successfulAttacks: number | null;
  totalAttacks: number | null;
  totalTrials: number | null;
}

export interface AttackEffectivenessRow {
  attack: string;
  timesUsed: number | null;
  /** Fraction of runs of this attack that succeeded, 0–1. */
  successRate: number | null;
  avgBestScore: number | null;
  totalTrials: number | null;
}

export interface TransformLiftRow {
  transform: string;
  /** ASR with the transform minus the baseline ASR (−1…1). */
  lift: number | null;
  avgAsr: number | null;
  timesUsed: number | null;
}

export interface FrameworkCoverage {
  framework: string;
  title: string;
  coveragePct: number | null;
  testedCategories: number | null;
  totalCategories: number | null;
  failing: number | null;
  passing: number | null;
  /** Tested without a success but on too few trials: never shown as passing. */
  insufficientEvidence?: number | null;
  untested: number | null;
  /** Where the service's compliance_posture disagrees with the matrix (coverage is the matrix's). */
  disagreements?: string[];
}

export interface RiskDomainRow {
  domain: string;
  critical: number | null;
  high: number | null;
  medium: number | null;
  total: number | null;
  avgAsr: number | null;
  maxScore: number | null;
  /** The ASR's numerator and denominator (attacks), when recomputed by the metrics layer. */
  successfulAttacks?: number | null;
  attacks?: number | null;
  /** The service's risk_by_domain total and avg_asr for the domain, the cross-check (null: not listed). */
  serviceTotal?: number | null;
  serviceAvgAsr?: number | null;
}

/** ASR of one goal (pooled attacks), with the service's GoalDetail.asr beside it. */
export interface GoalAsrRow {
  goalCategory: string | null;
  goal: string;
  asr: number | null;
  successfulAttacks: number;
  attacks: number;
  trials: number | null;
  evidence: 'measured' | 'insufficient_evidence';
  serviceAsr: number | null;
}

export interface TopFinding {
  rank: number;
  /** Raw severity string from the data (normally one of SEVERITY_LEVELS). */
  severity: string;
  attack: string;
  goalCategory: string | null;
  score: number | null;
  /** Triage status (open, false_positive, …) when the finding was triaged or known. */
  triageStatus: string | null;
  /**
   * Whether the figures count the finding open (metric_findings.is_open: not a false positive, not
   * remediated, not under a risk acceptance that still holds); null when the figures hold no such
   * finding (its assessment not analyzed, or its attack runs left out by an analytics warning).
   */
  open: boolean | null;
  assessmentName: string | null;
  goal: string | null;
  candidate: string | null;
  response: string | null;
  notes: string | null;
}

export interface EvaluationJobRow {
  id: string;
  name: string;
  status: string;
  kind: string | null;
  model: string | null;
  queuedAt: string | null;
  completedAt: string | null;
  datasetSize: number | null;
  passed: number | null;
  failed: number | null;
  errored: number | null;
  /** Items that ended as infra_error (the infrastructure failed them): an outcome, not passed. */
  infraError: number | null;
  /** Items that ended as timed_out: an outcome, not passed. */
  timedOut: number | null;
  /** Items cancelled before they ran: no outcome, so a job with any has no pass rate. */
  cancelled: number | null;
  /**
   * Items passed ÷ dataset size (0–1) once every item has an outcome (see `evaluationPassRate`); null
   * (shown "—") for a queued, running or cancelled job whose items have not all run, and when a count
   * is unknown or the dataset is empty.
   */
  passRate: number | null;
  errorSummary: string | null;
}

export interface AnalyticsWarningEntry {
  /** The project the assessment belongs to (shown in multi-project reports). */
  project: ProjectRef;
  assessmentId: string;
  assessmentName: string | null;
  field: string;
  reason: string;
  /** What the report left out because of it, in our words (e.g. "ASR by goal category of this assessment"). */
  excluded: string;
}

export interface LegacyDataEntry {
  project: ProjectRef;
  assessmentId: string | null;
  assessmentName: string | null;
  /** What is in an older format and how it was treated. */
  description: string;
}

export interface FailedRequestEntry {
  snapshotId: string;
  method: string;
  path: string;
  status: number | null;
  error: string;
}

export interface TruncatedTrialList {
  project: ProjectRef;
  assessmentId: string;
  assessmentName: string | null;
  trialsStored: number | null;
  /** The --trials-limit the snapshot used, when known. */
  limit: number | null;
}

export interface SchemaDriftEntry {
  /** Manifest file kind, e.g. `project_summary`. */
  fileKind: string;
  keys: string[];
}

export interface ConsistencyIssue {
  check: string;
  expected: string;
  actual: string;
}

/** One cross-check of a service total against the metrics layer's recomputation (all are listed). */
export interface ConsistencyCheckEntry {
  project: ProjectRef;
  /** Check name, e.g. `total_findings` or `coverage_pct.owasp_llm`. */
  check: string;
  serviceValue: number | null;
  recomputedValue: number | null;
  status: 'agrees' | 'disagrees' | 'not_compared';
  /** Why it disagrees or was not compared; null when there is nothing to add. */
  detail: string | null;
}

/** Everything that limits how far the numbers can be trusted. All lists empty = explicit empty state. */
export interface DataQuality {
  analyticsWarnings: AnalyticsWarningEntry[];
  legacyData: LegacyDataEntry[];
  /** Snapshot ids whose manifest status is `partial`. */
  partialSnapshots: string[];
  failedRequests: FailedRequestEntry[];
  truncatedTrialLists: TruncatedTrialList[];
  schemaDrift: SchemaDriftEntry[];
  /** The disagreeing cross-checks (the JSON report's `consistency_issues`). */
  consistency: ConsistencyIssue[];
  /**
   * Every cross-check, disagreements first (absent in hand-built models). Listing the ones that agree
   * lets an auditor see what was checked, not only what failed.
   */
  consistencyChecks?: ConsistencyCheckEntry[];
}

export interface SnapshotProvenance {
  snapshotId: string;
  org: string | null;
  workspace: string | null;
  status: string | null;
  rootSha256: string | null;
  fetchedAt: string | null;
  /** Version of the tool that took the snapshot. */
  snapshotToolVersion: string | null;
  apiVersion: string | null;
  appVersion: string | null;
  /**
   * Whether the report's figures come from this snapshot; false for one a portfolio lists only for
   * its ASR trend (figures-source.ts stamps the others, which `verify BUNDLE.zip` reads).
   */
  figures: boolean;
  /**
   * Set when the snapshot failed verification and was loaded anyway (forced: the warehouse's
   * snapshots.verified is false): its figures come from files that are not the ones its root hash
   * vouches for, and every rendering says so (unverified-banner.ts). Absent for a verified snapshot.
   */
  unverified?: UnverifiedLoad;
}

/** What the warehouse recorded about a snapshot loaded although it failed verification. */
export interface UnverifiedLoad {
  /** Files that did not match the manifest (modified, missing, unlisted), sorted; from load_warnings. */
  files: string[];
}

/** Where a report's data came from: snapshot, root hash, fetch time, tool version. */
export interface Provenance {
  snapshots: SnapshotProvenance[];
  /** Version of the tool that rendered the report. */
  toolVersion: string;
}

/** One side of a snapshot comparison. */
export interface SnapshotPoint {
  snapshotId: string;
  fetchedAt: string | null;
}

/** A figure in the previous and the current snapshot; `null` is unknown on that side (never 0). */
export interface MetricChange {
  /** Category, framework key or evaluation job name (data); our own key for the overall figures. */
  key: string;
  before: number | null;
  after: number | null;
  /** after − before; null when either side is unknown. */
  delta: number | null;
  /** added: only in the current snapshot; removed: only in the previous one. */
  presence: 'both' | 'added' | 'removed';
}

/** A finding that is new or got worse since the previous snapshot. Text fields are attacker-controlled. */
export interface ChangedFinding {
  change: 'new' | 'regressed';
  severity: string;
  /** Severity in the previous snapshot (regressed only). */
  severityBefore: string | null;
  attack: string;
  goalCategory: string | null;
  goal: string | null;
  scoreBefore: number | null;
  scoreAfter: number | null;
  /** What got worse (regressed only), e.g. `severity medium → high`; embeds data values. */
  reasons: string[];
}

/** Findings of unknown severity the "Since last snapshot" counts leave out (see the diff's `not_comparable`). */
export interface NotComparableFindings {
  total: number;
  /** How many have an unknown severity in the previous snapshot only, in the report's only, in both. */
  unknownIn: { previous: number; current: number; both: number };
  /** Assessments (ids, sorted) with attack runs lacking best_score in either snapshot. */
  assessments: string[];
}

/** A project the comparison could not cover: a partial snapshot holds no summary of it. */
export interface NotComparedProject {
  /** The snapshot without the project's summary, and which of the two it is. */
  snapshotId: string;
  side: 'previous' | 'current';
  /** That snapshot's failed requests for the project. */
  failedRequests: { method: string; path: string; status: number | null }[];
}

/** The executive report's "Since last snapshot" section: the project's diff against its previous snapshot. */
export interface SinceLastSnapshot {
  previous: SnapshotPoint;
  current: SnapshotPoint;
  counts: { new: number; resolved: number; regressed: number; persisting: number };
  /** New and regressed findings, worst first, at most a handful (see `changedFindingsTotal`). */
  changedFindings: ChangedFinding[];
  /** New + regressed, including those not listed. */
  changedFindingsTotal: number;
  /** Assessments whose attack runs an analytics warning excluded: their findings are in no count. */
  unknownFindingAssessments: string[];
  /**
   * Findings the diff could not compare: open with an unknown severity in either snapshot (the attack
   * run lacks its required best_score and no triage set one), so in none of `counts`. Absent in
   * hand-built models (none).
   */
  notComparable?: NotComparableFindings;
  /**
   * Set when the project was not compared at all: one snapshot is partial and holds no summary of it
   * (its request failed). `counts` are then 0 because nothing was compared, not because nothing
   * changed, and the metric changes are unknown. Absent or null when it was compared.
   */
  notCompared?: NotComparedProject | null;
  overallAsr: MetricChange;
  /** Risk score 0–10. */
  riskScore: MetricChange;
  /** ASR per goal category (0–1) with the largest changes first, at most a handful. */
  categoryAsr: MetricChange[];
  /** Goal categories compared in all, including those not listed. */
  categoryAsrTotal: number;
  /** Coverage per framework as a fraction 0–1, in taxonomy order; `title` is the framework's human title. */
  coverage: (MetricChange & { title: string })[];
  /** Pass rate (0–1) per evaluation job name. */
  evaluationPassRates: MetricChange[];
  /** Unknown keys (beyond the API spec) added or removed between the snapshots, per file kind. */
  schemaDrift: { fileKind: string; added: string[]; removed: string[] }[];
}

/** The metrics layer's figures of one project in one snapshot (the JSON report's core). */
export interface ProjectMetricsView {
  project: ProjectRef;
  snapshotId: string;
  figures: Record<string, MetricFigure>;
  compliance: {
    framework: string;
    coverage: number | null;
    disagreements: string[];
    categories: {
      id: string;
      state: ComplianceState;
      current_state: ComplianceState;
      last_tested_at: string | null;
    }[];
  }[];
  consistency: {
    check: string;
    service_value: number | null;
    recomputed_value: number | null;
    status: string;
    detail: string | null;
  }[]; /** ASR per goal category (metric_category_asr), worst first. */
  categories: CategoryAsrFigure[];
}

/** One goal category's pooled ASR as the JSON report shows it. */
export interface CategoryAsrFigure {
  id: string;
  value: number | null;
  numerator: number | null;
  denominator: number | null;
  trials: number | null;
  evidence: 'measured' | 'insufficient_evidence';
  source: 'recomputed';
  excluded_assessments: string[];
}

export interface MetricFigure {
  value: number | null;
  numerator?: number;
  denominator?: number;
  source: 'recomputed' | 'service';
  excluded_assessments: string[];
}

interface ReportBase {
  dataQuality: DataQuality;
  provenance: Provenance;
  /** Per project in scope: the figures as the metrics layer defines them (absent in hand-built models). */
  metrics?: ProjectMetricsView[];
}

/** The executive report's data for one project: posture, risk, findings, coverage, since last snapshot. */
export interface ExecutiveModel extends ReportBase {
  kind: 'executive';
  project: ProjectRef;
  kpis: Kpis;
  summary: Sentence[];
  riskTrend: RiskTrendPoint[];
  /** Worst first. */
  asrByCategory: { rows: CategoryAsr[]; excludes: Exclusion[] };
  attackEffectiveness: AttackEffectivenessRow[];
  transformLift: { baselineAsr: number | null; rows: TransformLiftRow[] };
  complianceCoverage: FrameworkCoverage[];
  riskByDomain: RiskDomainRow[];
  /** Assessments an analytics warning left out of risk by domain (absent in hand-built models). */
  riskByDomainExcludes?: Exclusion[];
  /** ASR per goal, worst first, at most GOAL_ROWS rows; `more` goals not listed. */
  goalAsr?: { rows: GoalAsrRow[]; more: number; excludes: Exclusion[] };
  topFindings: TopFinding[];
  evaluationJobs: EvaluationJobRow[];
  /** Changes since the previous snapshot of the project; null or absent when there is none. */
  sinceLastSnapshot?: SinceLastSnapshot | null;
  /** Dated risk acceptances to act on (absent in hand-built models). */
  riskAcceptances?: RiskAcceptanceReview;
}

/** One dated risk acceptance that ends soon or has ended (its finding then counts as open again). */
export interface RiskAcceptanceRow {
  /** The finding (attack run id). */
  findingId: string;
  attack: string | null;
  goalCategory: string | null;
  severity: string;
  owner: string | null;
  reason: string | null;
  /** Last day it holds, YYYY-MM-DD (UTC). */
  until: string;
  /** Whole days from the snapshot's fetch time to its end; negative once over. */
  daysLeft: number;
  state: 'expiring' | 'expired';
}

/** Acceptances ending within `windowDays` of the snapshot's as-of time, and those already over. */
export interface RiskAcceptanceReview {
  windowDays: number;
  /** Expired first, then by end date. */
  rows: RiskAcceptanceRow[];
}

/** The state of a framework category in a compliance report. */
export const COMPLIANCE_STATES = ['failing', 'insufficient_evidence', 'not_tested', 'passing'] as const;
/** Four states; an untested category is never passing, and a passing one needs enough trials. */
export type ComplianceState = (typeof COMPLIANCE_STATES)[number];

export interface ComplianceCategoryRow {
  tag: string;
  /** Human title of the category when the taxonomy has one. */
  title: string | null;
  state: ComplianceState;
  maxAsr: number | null;
  maxSeverity: string | null;
  totalTrials: number | null;
  /** State from the newest assessment that tested the category (the worst-ever state is `state`). */
  currentState?: ComplianceState;
  /** ISO date-time of the newest assessment that tested it; null when never tested. */
  lastTestedAt?: string | null;
  /** `null` when only legacy entries (without attacks_used) were seen. */
  attacksUsed: string[] | null;
  assessmentsTested: number;
  /** The service's recommendations that concern the category (absent in hand-built models). */
  recommendations?: ServiceRecommendation[];
}

/**
 * One item of an assessment's `recommendations`, carried from its goal category to the framework
 * categories that goal category's runs were tagged with. All text is the service's (data).
 */
export interface ServiceRecommendation {
  /** Name (else id) of the assessment that sent it. */
  assessment: string;
  goalCategory: string;
  priority: string | null;
  title: string | null;
  detail: string | null;
}

export interface HeatmapCell {
  assessmentId: string;
  tag: string;
  /** `null`: not tested, excluded (analytics warning) or unknown (legacy) — never drawn as 0. */
  asr: number | null;
  /** Whether the assessment tested the category (an untested cell is drawn "not tested", never 0%). */
  tested: boolean;
  /** Trials behind the cell's ASR (its sample size); null or absent when unknown (legacy entries). */
  trials?: number | null;
}

export interface ComplianceFrameworkSection {
  framework: string;
  title: string;
  testedCategories: number;
  totalCategories: number;
  /** testedCategories / totalCategories, 0–1; null when the framework has no categories. */
  coverage: number | null;
  /** A tested category with fewer trials than this (and no success) is "insufficient evidence". */
  minTrials: number;
  categories: ComplianceCategoryRow[];
  heatmap: {
    assessments: { id: string; name: string | null; date: string | null }[];
    cells: HeatmapCell[];
  };
  excludes: Exclusion[];
}

/**
 * The compliance report's data for one project: categories of each framework with their state and evidence.
 */
export interface ComplianceModel extends ReportBase {
  kind: 'compliance';
  project: ProjectRef;
  summary: Sentence[];
  frameworks: ComplianceFrameworkSection[];
}

export interface PortfolioProjectRow {
  project: ProjectRef;
  snapshotId: string;
  riskLevel: string | null;
  riskScore: number | null;
  overallAsr: number | null;
  overallAsrSuccessful?: number | null;
  overallAsrAttacks?: number | null;
  assessments: number | null;
  findingsBySeverity: SeverityCounts;
  coverage: PortfolioCoverageCell[];
}

/** One project × framework cell: coverage and, when known, its categories by state (never colour by coverage alone). */
export interface PortfolioCoverageCell {
  framework: string;
  title: string;
  coveragePct: number | null;
  /** Category counts by state (absent in older hand-built models: the cell's state is then unknown). */
  failing?: number | null;
  insufficientEvidence?: number | null;
  passing?: number | null;
  untested?: number | null;
  testedCategories?: number | null;
}

export interface PortfolioTrendPoint {
  projectKey: string;
  projectName: string | null;
  /** As ProjectRef.workspace: set when the database holds more than one (org, workspace). */
  workspace?: WorkspaceRef;
  snapshotId: string;
  fetchedAt: string | null;
  overallAsr: number | null;
  /** Attacks the overall ASR counts (its denominator); absent in hand-built models. */
  overallAsrAttacks?: number | null;
}

/** The portfolio report's data: every project side by side. */
export interface PortfolioModel extends ReportBase {
  kind: 'portfolio';
  summary: Sentence[];
  projects: PortfolioProjectRow[];
  /** Overall ASR per project per snapshot, oldest first. */
  asrTrend: PortfolioTrendPoint[];
}

/** The data of one report, before rendering: one of the three kinds. */
export type ReportModel = ExecutiveModel | ComplianceModel | PortfolioModel;

/** An empty data-quality section (every list empty). */
export function emptyDataQuality(): DataQuality {
  return {
    analyticsWarnings: [],
    legacyData: [],
    partialSnapshots: [],
    failedRequests: [],
    truncatedTrialLists: [],
    schemaDrift: [],
    consistency: [],
    consistencyChecks: [],
  };
}

/**
 * The time the report's data is from: the newest fetched_at of the snapshots it covers. The one rule
 * for "data as of": the report shows it and the PDF is dated with it. Null when no snapshot has a
 * known fetch time.
 */
export function reportDataAsOf(model: ReportModel): string | null {
  return (
    model.provenance.snapshots
      .map((snapshot) => snapshot.fetchedAt)
      .filter((value): value is string => value !== null)
      .sort()
      .at(-1) ?? null
  );
}

/** True when the data-quality section has nothing to report. */
export function isDataQualityClean(quality: DataQuality): boolean {
  // The cross-checks that agree are a record of what was checked, not an issue (disagreements are in
  // `consistency`).
  const { consistencyChecks: _checks, ...issues } = quality;
  return Object.values(issues).every((list: unknown[]) => list.length === 0);
}
