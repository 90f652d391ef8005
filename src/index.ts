/** Library API: explicit named exports. Everything the CLI does is callable from code. */
export * as schemas from './api/schemas.js';
export { parseStrict, parseTolerant, findUnknownKeys, SchemaValidationError } from './api/parse.js';
export type { SchemaIssue, TolerantParse } from './api/parse.js';
export { CliError, UsageError, InvalidOptionError, PartialResultError, EXIT, describeError } from './errors.js';
export type { ExitCode } from './errors.js';
export { ManifestSchema, computeRootHash, MANIFEST_FILE } from './snapshot/manifest.js';
export type { Manifest, ManifestFile, ManifestWarning, FailedRequest } from './snapshot/manifest.js';
export { takeSnapshot, SnapshotStoppedError } from './snapshot/take-snapshot.js';
export type { SnapshotOptions, SnapshotEffects, SnapshotResult } from './snapshot/take-snapshot.js';
export { verifySnapshot, readManifest, NotASnapshotError } from './snapshot/verify.js';
export type { VerifyResult, ModifiedFile } from './snapshot/verify.js';
export { createProgress } from './snapshot/progress.js';
export type { ProgressReporter, ProgressOptions, ProgressCounts } from './snapshot/progress.js';
export { safeSegment } from './snapshot/safe-path.js';
export { VERSION, SNAPSHOT_FORMAT } from './version.js';
export { validateTriageChange, isUuid, TRIAGE_FIELDS, TRIAGE_ENUMS } from './triage/triage-request.js';
export type { TriageInput, TriageProblem, ValidTriageChange } from './triage/triage-request.js';
export { readDecisionsFile, parseDecisions, DecisionsFileError } from './triage/decisions-file.js';
export type { DecisionRow, DecisionsFile, DecisionProblem } from './triage/decisions-file.js';
export {
  openJournal,
  readJournal,
  formatJournalLine,
  changeKey,
  indexJournal,
  JOURNAL_FORMAT,
  DEFAULT_JOURNAL_PATH,
} from './triage/journal.js';
export type { JournalEntry, JournalOutcome, JournalWriter } from './triage/journal.js';
export { triageFinding } from './triage/triage-finding.js';
export type { TriageFindingOptions, TriageFindingResult } from './triage/triage-finding.js';
export { applyDecisions, planDecisions } from './triage/apply-decisions.js';
export type { ApplyDecisionsOptions, ApplyReport, RowOutcome } from './triage/apply-decisions.js';
export type { ApplyPlan } from './triage/apply-plan.js';
export { validateAutoRefill } from './triage/auto-refill-request.js';
export { configureAutoRefill } from './triage/auto-refill.js';
export type { AutoRefillResult } from './triage/auto-refill.js';
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
export { apiPaths, InvalidPathSegmentError } from './api/paths.js';
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
  isResponseSchemaError,
} from './api/errors.js';
export type { HttpErrorFields, RequestTarget } from './api/errors.js';
export { renderMarkdown, renderHtml, reportChartSpecs } from './report/render.js';
export type { RenderOptions, RenderedMarkdown, RenderedHtml, ChartFiles } from './report/render.js';
export { writeReport, REPORT_FORMATS } from './report/write-report.js';
export type { ReportFormat, WriteReportOptions, WrittenReport } from './report/write-report.js';
export { generateReport } from './report/generate.js';
export type { GenerateReportOptions } from './report/generate.js';
export { buildModel } from './report/build-model.js';
export type { ModelRequest } from './report/build-model.js';
export { printPdf, resolveChromiumPath, DEFAULT_CHROMIUM_PATH } from './report/pdf.js';
export { executiveNarrative, complianceNarrative, portfolioNarrative } from './report/narrative.js';
export { classifyCategory, DEFAULT_MIN_TRIALS_FOR_EVIDENCE } from './report/compliance-state.js';
export { FRAMEWORKS, frameworkTitle } from './report/frameworks.js';
export { REPORT_KINDS, SEVERITY_LEVELS, COMPLIANCE_STATES, emptyDataQuality } from './report/model.js';
export type {
  ReportKind,
  ReportModel,
  ExecutiveModel,
  ComplianceModel,
  PortfolioModel,
  DataQuality,
  Provenance,
} from './report/model.js';
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
export { evaluateGates, judgeGate } from './pipeline/gates.js';
export type { GateMetricProvider, GateResult, MetricMeasurement, EvidenceRow } from './pipeline/gates.js';
export { warehouseMetricProvider } from './pipeline/warehouse-metrics.js';
export { buildGateReport, gateReportMarkdown, gateReportJson } from './pipeline/gate-report.js';
export type { GateReport } from './pipeline/gate-report.js';
export { writeBundle, collectBundleFiles } from './pipeline/bundle.js';
export type { BundleFile, BundleResult, WriteBundleOptions } from './pipeline/bundle.js';
export { verifyBundle } from './pipeline/verify-bundle.js';
export type { BundleVerification } from './pipeline/verify-bundle.js';
export { acquireRunLock, RunLockedError } from './pipeline/lock.js';
export { applyRetention, listFinishedSnapshots } from './pipeline/retention.js';
export { gatedBaselinePath, readGatedBaseline } from './pipeline/gated-baseline.js';
export type { GatedBaseline } from './pipeline/gated-baseline.js';
export { diffFindings, findingFingerprint } from './diff/finding-lifecycle.js';
export type { FindingRecord, FindingLifecycle } from './diff/finding-lifecycle.js';
export { metricDeltas } from './diff/metric-deltas.js';
export type { MetricDelta, ProjectMetrics } from './diff/metric-deltas.js';
export { diffSchemaDrift } from './diff/schema-drift-diff.js';
export { diffSnapshots } from './diff/snapshot-diff.js';
export { diffMarkdown, diffJson } from './diff/diff-report.js';
export type { SnapshotDiff, ProjectDiff } from './diff/diff-report.js';
export { sinceLastSnapshotSentences } from './diff/since-last-snapshot.js';
export { startSimulator, parseFaultSpec, PRESETS, HOSTILE_SLUG } from './simulator/index.js';
export type {
  RunningSimulator,
  SimulatorOptions,
  SimulatorScale,
  SimulatorPreset,
  SimulatorTruth,
  FaultSpec,
} from './simulator/index.js';
export {
  loadSnapshots,
  SnapshotRefusedError,
  RecordCountError,
  loadTriageJournal,
  runQuery,
  QueryError,
  formatResult,
  neutralizeCsvCell,
  escapeMarkdownCell,
  OUTPUT_FORMATS,
  listNamedQueries,
  readNamedQuery,
  QUERIES_DIR,
  exportParquet,
  openWarehouse,
  SCHEMA_VERSION,
  ensureSchema,
  WAREHOUSE_TABLES,
  MalformedJsonError,
} from './warehouse/index.js';
export type {
  LoadOptions,
  LoadProgress,
  LoadResult,
  SnapshotLoadResult,
  VerifyProblem,
  JournalLoadResult,
  QueryResult,
  QueryColumn,
  OutputFormat,
  FormatOptions,
  NamedQuery,
  ExportResult,
  ExportedTable,
  Warehouse,
  TableDef,
  ColumnDef,
  ColumnType,
} from './warehouse/index.js';
