/**
 * airt-report's library API: `import { takeSnapshot, loadSnapshots, generateReport } from 'airt-report'`.
 * Everything the CLI does is one of these calls; the CLI only parses flags, calls, and prints.
 *
 * The names here are deliberate: the steps (snapshot, verify, load, query, report, diff, gates, run,
 * triage), their options and results, and the typed errors a caller tells apart. Internals (path
 * helpers, journal line formats, schema tables, narrative builders) stay unexported, and the service
 * simulator used by tests and the demo has its own entry point, `airt-report/simulator`. Every name
 * is documented where it is declared. ARCHITECTURE.md shows how the layers fit together.
 */

// Errors every step may raise: expected failures carry an exit code; option problems name the option.
export {
  CliError,
  UsageError,
  InvalidOptionError,
  PartialResultError,
  EXIT,
  describeError,
} from './errors.js';
export type { ExitCode, OptionWording } from './errors.js';

// The service's API: contract schemas, the HTTP client, its typed errors and guards.
/** The API contract as zod schemas (ConfigResponse, ProjectSummary, Trial, FindingDetail, …). */
export * as schemas from './api/schemas.js';
export { parseStrict, parseTolerant, findUnknownKeys, SchemaValidationError } from './api/parse.js';
export type { SchemaIssue, TolerantParse } from './api/parse.js';
export { createApiClient, DEFAULT_RETRY_POLICY } from './api/client.js';
export type {
  ApiClient,
  ApiClientOptions,
  Parsed,
  RawRequest,
  RetryEvent,
  RetryPolicy,
  AllEvaluations,
  ListingStopReason,
  ListEvaluationsParams,
  ListTrialsParams,
} from './api/client.js';
export { formatRetryEvent } from './api/retry.js';
export { normalizeBaseUrl, readToken } from './api/connection-settings.js';
export type { TokenSources } from './api/connection-settings.js';
export { InvalidPathSegmentError } from './api/paths.js';
export {
  ApiError,
  HttpError,
  AuthenticationError,
  ForbiddenError,
  NotFoundError,
  UpgradeRequiredError,
  NetworkError,
  BlockedPortError,
  TimeoutError,
  OutcomeUnknownError,
  MalformedBodyError,
  ResponseSchemaError,
  isApiError,
  isHttpError,
  isAuthenticationError,
  isForbiddenError,
  isNotFoundError,
  isUpgradeRequiredError,
  isNetworkError,
  isBlockedPortError,
  isTimeoutError,
  isOutcomeUnknownError,
  isMalformedBodyError,
  isResponseSchemaError,
} from './api/errors.js';
export type { HttpErrorFields, RequestTarget } from './api/errors.js';

// Snapshots: take, verify, read.
export { takeSnapshot, SnapshotStoppedError } from './snapshot/take-snapshot.js';
export type { SnapshotOptions, SnapshotEffects, SnapshotResult } from './snapshot/take-snapshot.js';
export { verifySnapshot, readManifest, NotASnapshotError } from './snapshot/verify.js';
export type { VerifyResult, ModifiedFile } from './snapshot/verify.js';
export { ManifestSchema, MANIFEST_FILE } from './snapshot/manifest.js';
export type { Manifest, ManifestFile, ManifestWarning, FailedRequest } from './snapshot/manifest.js';
export { createProgress } from './snapshot/progress.js';
export type { ProgressReporter, ProgressOptions, ProgressCounts } from './snapshot/progress.js';
export { VERSION, SNAPSHOT_FORMAT } from './version.js';

// The warehouse: load, query, export.
export {
  loadSnapshots,
  upgradeWarehouse,
  SnapshotRefusedError,
  RecordCountError,
  loadTriageJournal,
  runQuery,
  streamQuery,
  QueryError,
  formatResult,
  writeResult,
  OUTPUT_FORMATS,
  listNamedQueries,
  readNamedQuery,
  exportParquet,
  openWarehouse,
  SCHEMA_VERSION,
  MalformedJsonError,
} from './warehouse/index.js';
export type {
  LoadOptions,
  LoadProgress,
  LoadResult,
  SnapshotLoadResult,
  UpgradeResult,
  VerifyProblem,
  JournalLoadResult,
  QueryResult,
  QueryColumn,
  QueryStream,
  OutputFormat,
  FormatOptions,
  NamedQuery,
  ExportResult,
  ExportedTable,
  Warehouse,
} from './warehouse/index.js';

// Reports: one call from database to files, or the model and renderers apart.
export { generateReport } from './report/generate.js';
export type { GenerateReportOptions } from './report/generate.js';
export { buildModel } from './report/build-model.js';
export type { ModelRequest } from './report/build-model.js';
export { renderMarkdown, renderHtml } from './report/render.js';
export type { RenderOptions, RenderedMarkdown, RenderedHtml, ChartFiles } from './report/render.js';
export { writeReport, REPORT_FORMATS } from './report/write-report.js';
export type { ReportFormat, WriteReportOptions, WrittenReport } from './report/write-report.js';
export { printPdf, resolveChromiumPath, DEFAULT_CHROMIUM_PATH } from './report/pdf.js';
export { FRAMEWORKS, frameworkTitle } from './taxonomy/frameworks.js';
export { REPORT_KINDS, SEVERITY_LEVELS, COMPLIANCE_STATES } from './report/model.js';
export type {
  ReportKind,
  ReportModel,
  ExecutiveModel,
  ComplianceModel,
  PortfolioModel,
  DataQuality,
  Provenance,
} from './report/model.js';

// Diff of two snapshots in one database.
export { diffSnapshots } from './diff/snapshot-diff.js';
export { diffMarkdown, diffJson } from './diff/diff-report.js';
export type { SnapshotDiff, ProjectDiff } from './diff/diff-report.js';
export { diffFindings, findingFingerprint } from './diff/finding-lifecycle.js';
export type { FindingRecord, FindingLifecycle } from './diff/finding-lifecycle.js';
export type { MetricDelta, ProjectMetrics } from './diff/metric-deltas.js';

// The scheduled pipeline (`run`), its gates and evidence bundles.
export { runPipeline } from './pipeline/run-pipeline.js';
export type { PipelineEffects, PipelineResult } from './pipeline/run-pipeline.js';
export {
  RunConfigSchema,
  loadRunConfig,
  parseRunConfig,
  runConfigFromObject,
  runConfigJsonSchema,
  resolveRunToken,
} from './pipeline/run-config.js';
export type { RunConfig, RunConfigFile, ConfiguredGate } from './pipeline/run-config.js';
export type { RunSummary, RunOutcome, RunInterruption, StepRecord } from './pipeline/run-summary.js';
export {
  parseGateExpression,
  GateSyntaxError,
  GATE_METRIC_CATALOG,
  GATE_OPERATORS,
} from './pipeline/gate-expression.js';
export type { GateExpression, GateMetric, GateOperator } from './pipeline/gate-expression.js';
export { evaluateGates } from './pipeline/gates.js';
export type { GateMetricProvider, GateResult, MetricMeasurement, EvidenceRow } from './pipeline/gates.js';
export { warehouseMetricProvider } from './pipeline/warehouse-metrics.js';
export { buildGateReport, gateReportMarkdown, gateReportJson } from './pipeline/gate-report.js';
export type { GateReport } from './pipeline/gate-report.js';
export { writeBundle } from './pipeline/bundle.js';
export type { BundleFile, BundleResult, WriteBundleOptions } from './pipeline/bundle.js';
export { verifyBundle } from './pipeline/verify-bundle.js';
export type { BundleVerification } from './pipeline/verify-bundle.js';
export { applyRetention, listFinishedSnapshots } from './pipeline/retention.js';

// Triage: one finding, a decisions file, the journal of what was sent; credits auto-refill.
export { validateTriageChange, isUuid, TRIAGE_FIELDS, TRIAGE_ENUMS } from './triage/triage-request.js';
export type { TriageInput, TriageProblem, ValidTriageChange } from './triage/triage-request.js';
export { triageFinding, TriageOutcomeUnknownError } from './triage/triage-finding.js';
export type { TriageFindingOptions, TriageFindingResult } from './triage/triage-finding.js';
export { readDecisionsFile, parseDecisions, DecisionsFileError } from './triage/decisions-file.js';
export type { DecisionRow, DecisionsFile, DecisionProblem } from './triage/decisions-file.js';
export { applyDecisions, planDecisions } from './triage/apply-decisions.js';
export type { ApplyDecisionsOptions, ApplyReport, RowOutcome } from './triage/apply-decisions.js';
export type { ApplyPlan } from './triage/apply-plan.js';
export { openJournal, readJournal, JOURNAL_FORMAT, DEFAULT_JOURNAL_PATH } from './triage/journal.js';
export type { JournalEntry, JournalOutcome, JournalWriter } from './triage/journal.js';
export { validateAutoRefill } from './triage/auto-refill-request.js';
export type { AutoRefillField } from './triage/auto-refill-request.js';
export { configureAutoRefill, AutoRefillOutcomeUnknownError } from './triage/auto-refill.js';
export type { AutoRefillResult, AutoRefillMismatch } from './triage/auto-refill.js';
