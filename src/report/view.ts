/**
 * Model → template view. The view is what a Handlebars template sees: numbers stay numbers (helpers
 * format them, null as "—"), our own labels are plain strings, and every string from the data is
 * shaped (sanitized, truncated, redacted) and escaped for the output format into an `Escaped` value.
 *
 *   model ──shape (TextShaper)──▶ display text ──escape (OutputContext)──▶ Escaped ──▶ template
 */
import { formatDate, formatDateTime } from './format.js';
import {
  isDataQualityClean,
  projectLabel,
  reportDataAsOf,
  workspaceLabel,
  type DataQuality,
  type ProjectRef,
  type Provenance,
  type ReportModel,
} from './model.js';
import { Escaped } from './output-context.js';
import { briefView } from './view-brief.js';
import { consistencyChecksView } from './view-consistency.js';
import { complianceSections, executiveSections, portfolioSections } from './view-sections.js';
import type { ChartView, ViewText } from './view-text.js';

function projectView(text: ViewText, project: ProjectRef) {
  return {
    name: text.label(project.name ?? project.key),
    key: text.code(project.key),
    id: text.maybeCode(project.id),
    // Only when the database holds several workspaces (model.ts, ProjectRef.workspace).
    workspace: text.maybeLabel(project.workspace === undefined ? null : workspaceLabel(project.workspace)),
  };
}

/**
 * The data-quality section. In a multi-project report each assessment row names its project too:
 * assessment names repeat across projects, and without the project two rows can read identically.
 */
function dataQualityView(text: ViewText, quality: DataQuality, multiProject: boolean) {
  const projectOf = (project: ProjectRef): Escaped | null =>
    multiProject ? text.label(projectLabel(project)) : null;
  return {
    clean: isDataQualityClean(quality),
    multiProject,
    analyticsWarnings: quality.analyticsWarnings.map((entry) => ({
      project: projectOf(entry.project),
      assessment: text.label(entry.assessmentName ?? entry.assessmentId),
      assessmentId: text.code(entry.assessmentId),
      field: text.code(entry.field),
      reason: text.label(entry.reason),
      excluded: text.label(entry.excluded),
    })),
    legacyData: quality.legacyData.map((entry) => ({
      project: projectOf(entry.project),
      assessment: text.maybeLabel(entry.assessmentName ?? entry.assessmentId),
      assessmentId: text.maybeCode(entry.assessmentId),
      description: text.label(entry.description),
    })),
    partialSnapshots: quality.partialSnapshots.map((id) => text.code(id)),
    failedRequests: quality.failedRequests.map((entry) => ({
      snapshot: text.code(entry.snapshotId),
      request: text.code(`${entry.method} ${entry.path}`),
      status: entry.status,
      error: text.label(entry.error),
    })),
    truncatedTrialLists: quality.truncatedTrialLists.map((entry) => ({
      project: projectOf(entry.project),
      assessment: text.label(entry.assessmentName ?? entry.assessmentId),
      trialsStored: entry.trialsStored,
      limit: entry.limit,
    })),
    schemaDrift: quality.schemaDrift.map((entry) => ({
      fileKind: text.code(entry.fileKind),
      keys: new Escaped(entry.keys.map((key) => text.code(key).value).join(', ')),
      count: entry.keys.length,
    })),
    consistency: quality.consistency.map((entry) => ({
      check: text.label(entry.check),
      expected: text.label(entry.expected),
      actual: text.label(entry.actual),
    })),
    checks: consistencyChecksView(text, quality.consistencyChecks, multiProject),
  };
}

function provenanceView(text: ViewText, provenance: Provenance) {
  return {
    toolVersion: provenance.toolVersion,
    snapshots: provenance.snapshots.map((snapshot) => ({
      // The header and the provenance table mark a snapshot loaded unverified (see unverified-banner.ts).
      snapshotId:
        snapshot.unverified === undefined
          ? text.code(snapshot.snapshotId)
          : new Escaped(`${text.code(snapshot.snapshotId).value}${text.context.own(' (UNVERIFIED)')}`),
      org: text.maybeLabel(snapshot.org),
      workspace: text.maybeLabel(snapshot.workspace),
      status:
        snapshot.unverified === undefined
          ? text.maybeLabel(snapshot.status)
          : new Escaped(
              `${text.label(snapshot.status ?? 'unknown').value}${text.context.own('; UNVERIFIED: failed verification, loaded forced')}`,
            ),
      rootSha256: text.maybeCode(snapshot.rootSha256),
      fetchedAt: formatDateTime(snapshot.fetchedAt),
      snapshotToolVersion: text.maybeLabel(snapshot.snapshotToolVersion),
      apiVersion: text.maybeLabel(snapshot.apiVersion),
      appVersion: text.maybeLabel(snapshot.appVersion),
      // A portfolio also lists the snapshots of its ASR trend; the header names only the others.
      figures: snapshot.figures,
      usedFor: text.label(snapshot.figures ? 'figures' : 'ASR trend only'),
    })),
  };
}

const KIND_TITLES = {
  executive: 'Executive red-team report',
  compliance: 'Compliance mapping report',
  portfolio: 'Portfolio red-team report',
} as const;

/** html-validate's limit for a <title>: browsers cut longer ones in a tab anyway. */
const TITLE_LIMIT = 70;

/**
 * The HTML <title>: the report kind and the project, the project cut with "…" to fit the limit
 * (the page's own heading shows it whole).
 */
export function pageTitle(kind: ReportModel['kind'], project: string | null, limit = TITLE_LIMIT): string {
  const head = KIND_TITLES[kind];
  if (project === null) return head;
  const room = Math.max(1, limit - head.length - ' — '.length);
  const chars = [...project];
  return `${head} — ${chars.length <= room ? project : `${chars.slice(0, room - 1).join('')}…`}`;
}

/** The <title> as written in the file, escapes counted: the project is cut until it fits. */
function escapedTitle(text: ViewText, kind: ReportModel['kind'], project: string | null): Escaped {
  let room = TITLE_LIMIT;
  // <title> holds text only: no line-break opportunities (output-context.ts breakIdentifiers).
  const escape = (limit: number): Escaped =>
    new Escaped(text.label(pageTitle(kind, project, limit)).value.replaceAll('<wbr>', ''));
  let title = escape(room);
  while (title.value.length > TITLE_LIMIT && room > KIND_TITLES[kind].length) {
    room -= title.value.length - TITLE_LIMIT;
    title = escape(room);
  }
  return title;
}

export interface ViewOptions {
  charts: Record<string, ChartView>;
}

/**
 * Builds the template view of a model. Call once per render: the shaper counts redactions, and the
 * count shown in the report is read after every section was built.
 */
export function buildView(model: ReportModel, text: ViewText, options: ViewOptions): Record<string, unknown> {
  const chart = (name: string): ChartView | null => options.charts[name] ?? null;
  const dataAsOf = reportDataAsOf(model);
  const common = {
    kind: model.kind,
    reportTitle: KIND_TITLES[model.kind],
    title: model.kind === 'portfolio' ? 'All projects' : text.label(projectLabel(model.project)),
    pageTitle: escapedTitle(
      text,
      model.kind,
      model.kind === 'portfolio' ? null : projectLabel(model.project),
    ),
    dataAsOf: formatDateTime(dataAsOf),
    dataAsOfDate: formatDate(dataAsOf),
    summary: model.summary.map((sentence) => text.sentence(sentence)),
    dataQuality: dataQualityView(text, model.dataQuality, model.kind === 'portfolio'),
    provenance: provenanceView(text, model.provenance),
  };
  let sections: Record<string, unknown>;
  switch (model.kind) {
    case 'executive':
      sections = {
        project: projectView(text, model.project),
        brief: briefView(model, text),
        ...executiveSections(model, text, chart),
      };
      break;
    case 'compliance':
      sections = { project: projectView(text, model.project), ...complianceSections(model, text, chart) };
      break;
    case 'portfolio':
      sections = portfolioSections(model, text, chart);
      break;
  }
  // Read last: every excerpt above has been shaped by now.
  const redaction = {
    enabled: text.shaper.policy.redact,
    count: text.shaper.redactedCount,
    maxText: text.shaper.policy.maxText,
  };
  return { ...common, ...sections, charts: options.charts, redaction };
}
