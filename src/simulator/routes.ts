/**
 * HTTP semantics of the six operations (plus the simulator's own `/_sim/epoch`): routing, auth, the
 * 426 gate, parameter validation (422 with `errors[]`), lookups (404) and the handlers. Returns a
 * reply description; server.ts writes it (and applies faults).
 *
 * Order of checks on operations 1-5, like a gateway in front of a FastAPI app:
 *   426 upgrade gate → 401 token → 403 read-only write → 422 parameters/body → 404 lookups → handler
 */
import {
  EVALUATION_PAGE_BOUNDS,
  FindingStatusSchema,
  FindingTypeSchema,
  SeveritySchema,
} from '../api/schemas.js';
import {
  envelope,
  intIssue,
  notFound,
  uuidIssue,
  validationError,
  type ErrorReply,
  type ValidationItem,
} from './http-errors.js';
import { isUuid } from './ids.js';
import { findingDetailJson, currentTriage } from './finding-detail.js';
import { SIM_API_VERSION, autoRefillJson, configJson, type AutoRefillSettings } from './service-docs.js';
import type { SimulatedService } from './service.js';
import type { TriageChange } from './triage-store.js';
import { trialListChunks } from './trials.js';

export type Reply =
  ErrorReply | { status: number; chunks: () => Iterable<string>; headers?: Record<string, string> };

export interface SimRequest {
  method: string;
  pathname: string;
  query: URLSearchParams;
  authorization: string | undefined;
  body: string;
}

const FINDING_STATUSES: readonly string[] = FindingStatusSchema.options;
const FINDING_TYPES: readonly string[] = FindingTypeSchema.options;
const SEVERITIES: readonly string[] = SeveritySchema.options;
const TRUE_WORDS = new Set(['1', 'on', 't', 'true', 'y', 'yes']);
const FALSE_WORDS = new Set(['0', 'off', 'f', 'false', 'n', 'no']);

const json = (status: number, body: unknown): Reply => ({ status, body: JSON.stringify(body) });

function enumMessage(values: readonly string[]): string {
  const quoted = values.map((v) => `'${v}'`);
  return `Input should be ${quoted.slice(0, -1).join(', ')} or ${quoted[quoted.length - 1] ?? ''}`;
}

function splitPath(pathname: string): string[] | null {
  try {
    return pathname.split('/').slice(1).map(decodeURIComponent);
  } catch {
    return null;
  }
}

type Access = 'full' | 'read' | 'none';

export class Router {
  constructor(private readonly service: SimulatedService) {}

  private access(authorization: string | undefined): Access {
    const match = /^Bearer\s+(.+)$/i.exec(authorization ?? '');
    const token = match?.[1]?.trim();
    const { options } = this.service;
    if (token === options.token) return 'full';
    if (options.readOnlyToken !== undefined && token === options.readOnlyToken) return 'read';
    return 'none';
  }

  handle(req: SimRequest): Reply {
    const seg = splitPath(req.pathname);
    if (!seg) return envelope(400, 'invalid_error', 'The request path has malformed percent-encoding.');
    const route = `${req.method} ${seg.length}`;
    if (seg[0] === '_sim' && seg[1] === 'epoch' && seg.length === 2) return this.simEpoch(req);
    if (seg[0] !== 'api' || seg[1] !== 'v1') return this.noRoute(req);
    if (route === 'GET 3' && seg[2] === 'config') return json(200, configJson());
    if (seg[2] !== 'org' || seg[3] === undefined) return this.noRoute(req);
    const org = seg[3];
    let operation: (() => Reply) | null = null;
    let write = false;
    if (req.method === 'PUT' && seg.length === 6 && seg[4] === 'credits' && seg[5] === 'auto-refill') {
      write = true;
      operation = () => this.autoRefill(org, req);
    } else if (seg[4] === 'ws' && seg[5] !== undefined) {
      const ws = seg[5];
      if (
        req.method === 'GET' &&
        seg.length === 10 &&
        seg[6] === 'airt' &&
        seg[7] === 'projects' &&
        seg[9] === 'summary'
      ) {
        operation = () => this.summary(org, ws, seg[8] ?? '');
      } else if (req.method === 'PATCH' && seg.length === 9 && seg[6] === 'airt' && seg[7] === 'findings') {
        write = true;
        operation = () => this.updateFinding(org, ws, seg[8] ?? '', req.body);
      } else if (req.method === 'GET' && seg.length === 7 && seg[6] === 'evaluations') {
        operation = () => this.evaluations(org, ws, req.query);
      } else if (
        req.method === 'GET' &&
        seg.length === 11 &&
        seg[6] === 'airt' &&
        seg[7] === 'assessments' &&
        seg[9] === 'traces' &&
        seg[10] === 'trials'
      ) {
        operation = () => this.trials(org, ws, seg[8] ?? '', req.query);
      }
    }
    if (!operation) return this.noRoute(req);
    if (this.service.options.upgradeRequired) {
      return envelope(
        426,
        'upgrade_required_error',
        `Upgrade required: this service speaks API ${SIM_API_VERSION}; install a newer client.`,
      );
    }
    const access = this.access(req.authorization);
    if (access === 'none')
      return envelope(
        401,
        'authentication_error',
        'Authentication failed: the bearer token is missing or invalid.',
      );
    if (write && access !== 'full')
      return envelope(
        403,
        'forbidden_error',
        'Access forbidden: this token is read-only and cannot make changes.',
      );
    return operation();
  }

  private noRoute(req: SimRequest): Reply {
    return notFound(`No operation ${req.method} ${req.pathname}.`);
  }

  /** 404 unless org and workspace are the simulated ones. */
  private scope(org: string, ws?: string): ErrorReply | null {
    const { options } = this.service;
    if (org !== options.org) return notFound(`Organization '${org}' not found.`);
    if (ws !== undefined && ws !== options.workspace)
      return notFound(`Workspace '${ws}' not found in organization '${org}'.`);
    return null;
  }

  private summary(org: string, ws: string, projectRef: string): Reply {
    const missing = this.scope(org, ws);
    if (missing) return missing;
    const project = this.service.findProject(projectRef);
    if (!project) return notFound(`Project '${projectRef}' not found in workspace '${ws}'.`);
    return { status: 200, body: this.service.summaryBody(project) };
  }

  private evaluations(org: string, ws: string, query: URLSearchParams): Reply {
    const issues: ValidationItem[] = [];
    const page = query.get('page');
    const pageSize = query.get('page_size');
    const projectId = query.get('project_id');
    const status = query.get('status');
    const bounds = EVALUATION_PAGE_BOUNDS;
    const pageIssue = page === null ? null : intIssue(['query', 'page'], page, bounds.page.min);
    const sizeIssue =
      pageSize === null
        ? null
        : intIssue(['query', 'page_size'], pageSize, bounds.page_size.min, bounds.page_size.max);
    if (pageIssue) issues.push(pageIssue);
    if (sizeIssue) issues.push(sizeIssue);
    if (projectId !== null && !isUuid(projectId)) issues.push(uuidIssue(['query', 'project_id']));
    if (issues.length) return validationError(issues);
    const missing = this.scope(org, ws);
    if (missing) return missing;
    const pageNumber = page === null ? 1 : Number(page);
    const size = pageSize === null ? bounds.page_size.default : Number(pageSize);
    const jobs = this.service.evaluations
      .all(this.service.epoch)
      .filter(
        (j) =>
          (projectId === null || j.projectId === projectId.toLowerCase()) &&
          (status === null || j.status === status),
      );
    const items = jobs.slice((pageNumber - 1) * size, pageNumber * size).map((j) => j.json);
    return json(200, { items, page: pageNumber, page_size: size, total: jobs.length });
  }

  private trials(org: string, ws: string, assessmentId: string, query: URLSearchParams): Reply {
    const issues: ValidationItem[] = [];
    if (!isUuid(assessmentId)) issues.push(uuidIssue(['path', 'assessment_id']));
    const limit = query.get('limit');
    const limitIssue = limit === null ? null : intIssue(['query', 'limit'], limit, 1, 5000);
    if (limitIssue) issues.push(limitIssue);
    const jailbreaks = query.get('jailbreaks_only');
    const jailbreaksWord = jailbreaks?.trim().toLowerCase();
    if (jailbreaksWord !== undefined && !TRUE_WORDS.has(jailbreaksWord) && !FALSE_WORDS.has(jailbreaksWord)) {
      issues.push({
        loc: ['query', 'jailbreaks_only'],
        msg: 'Input should be a valid boolean, unable to interpret input',
        type: 'bool_parsing',
      });
    }
    if (issues.length) return validationError(issues);
    const missing = this.scope(org, ws);
    if (missing) return missing;
    const assessment = this.service.findAssessment(assessmentId);
    if (!assessment) return notFound(`Assessment '${assessmentId}' not found in workspace '${ws}'.`);
    const trialQuery = {
      limit: limit === null ? 500 : Number(limit),
      jailbreaksOnly: jailbreaksWord !== undefined && TRUE_WORDS.has(jailbreaksWord),
      brokenText: this.service.options.brokenText,
    };
    return { status: 200, chunks: () => trialListChunks(assessment, trialQuery) };
  }

  private updateFinding(org: string, ws: string, findingId: string, rawBody: string): Reply {
    const issues: ValidationItem[] = [];
    if (!isUuid(findingId)) issues.push(uuidIssue(['path', 'finding_id']));
    const body = parseBody(rawBody, issues);
    const change: TriageChange = {};
    if (body) {
      const enums: [keyof TriageChange, readonly string[]][] = [
        ['finding_status', FINDING_STATUSES],
        ['finding_type', FINDING_TYPES],
        ['severity', SEVERITIES],
      ];
      for (const [field, values] of enums) {
        const value = body[field];
        if (value === undefined || value === null) continue;
        if (typeof value !== 'string' || !values.includes(value))
          issues.push({ loc: ['body', field], msg: enumMessage(values), type: 'enum' });
        else change[field] = value;
      }
      const notes = body.notes;
      if (notes !== undefined && notes !== null && typeof notes !== 'string') {
        issues.push({ loc: ['body', 'notes'], msg: 'Input should be a valid string', type: 'string_type' });
      } else if (typeof notes === 'string') change.notes = notes;
    }
    if (issues.length) return validationError(issues);
    const missing = this.scope(org, ws);
    if (missing) return missing;
    const found = this.service.findRun(findingId);
    if (!found) return notFound(`Finding '${findingId}' not found in workspace '${ws}'.`);
    const { triage, epoch, options } = this.service;
    const state = triage.apply(
      found.run.plan.id,
      currentTriage(found.run, triage.get(found.run.plan.id)),
      change,
      epoch,
      `operator@${options.org}.example`,
    );
    return json(
      200,
      findingDetailJson(found.run, found.assessmentName, state.events.length ? state : undefined),
    );
  }

  private autoRefill(org: string, req: SimRequest): Reply {
    const issues: ValidationItem[] = [];
    const body = parseBody(req.body, issues);
    if (body) {
      if (!('enabled' in body))
        issues.push({ loc: ['body', 'enabled'], msg: 'Field required', type: 'missing' });
      else if (typeof body.enabled !== 'boolean')
        issues.push({ loc: ['body', 'enabled'], msg: 'Input should be a valid boolean', type: 'bool_type' });
      const bounds: [string, number, number][] = [
        ['monthly_cap', 1, 50],
        ['quantity', 1, 10],
        ['threshold', 1000, 1_000_000],
      ];
      for (const [field, min, max] of bounds) {
        if (!(field in body)) issues.push({ loc: ['body', field], msg: 'Field required', type: 'missing' });
        else {
          const issue = intIssue(['body', field], body[field], min, max);
          if (issue) issues.push(issue);
        }
      }
    }
    if (issues.length || !body) return validationError(issues);
    const missing = this.scope(org);
    if (missing) return missing;
    const settings: AutoRefillSettings = {
      enabled: body.enabled as boolean,
      // Digit strings pass validation like pydantic's lax mode; store them as numbers.
      monthly_cap: Number(body.monthly_cap),
      quantity: Number(body.quantity),
      threshold: Number(body.threshold),
    };
    this.service.autoRefill.set(org, settings);
    return json(200, autoRefillJson(settings, this.service.options.hasPaymentMethod, this.service.epoch));
  }

  private simEpoch(req: SimRequest): Reply {
    if (this.access(req.authorization) !== 'full') {
      return envelope(
        401,
        'authentication_error',
        'Authentication failed: the bearer token is missing or invalid.',
      );
    }
    if (req.method === 'GET') return json(200, { epoch: this.service.epoch });
    if (req.method !== 'POST') return this.noRoute(req);
    const issues: ValidationItem[] = [];
    const body = parseBody(req.body, issues);
    const issue = body ? intIssue(['body', 'epoch'], body.epoch, 0) : null;
    if (issue) issues.push(issue);
    if (issues.length || !body) return validationError(issues);
    this.service.setEpoch(Number(body.epoch));
    return json(200, { epoch: this.service.epoch });
  }
}

/** Parses a JSON object body; records a 422 item when it is not one. */
function parseBody(raw: string, issues: ValidationItem[]): Record<string, unknown> | null {
  let value: unknown;
  try {
    value = JSON.parse(raw === '' ? 'null' : raw);
  } catch {
    issues.push({ loc: ['body'], msg: 'JSON decode error', type: 'json_invalid' });
    return null;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    issues.push({
      loc: ['body'],
      msg: 'Input should be a valid dictionary or object to extract fields from',
      type: 'model_attributes_type',
    });
    return null;
  }
  return value as Record<string, unknown>;
}
