/**
 * The gate language: `<metric> <operator> <number>`, e.g. `overall_asr <= 0.25` or
 * `framework.owasp_llm.failing_categories <= 2`. Small on purpose — a CI gate must be readable by the
 * person whose build it breaks — and strict: an unknown metric or a malformed expression is an error
 * at config-load time, never a gate that silently passes.
 */
import { nearestKey } from '../nearest-name.js';

/** The comparison operators a gate expression may use. */
export const GATE_OPERATORS = ['<=', '>=', '==', '!=', '<', '>'] as const;
/** One of GATE_OPERATORS. */
export type GateOperator = (typeof GATE_OPERATORS)[number];

/** A metric a gate can test, with the parameter its name carries (framework key or goal category). */
export type GateMetric =
  | { kind: 'new_critical_findings' }
  | { kind: 'new_findings' }
  | { kind: 'regressed_findings' }
  | { kind: 'open_critical_findings' }
  | { kind: 'overall_asr' }
  | { kind: 'risk_score' }
  | { kind: 'min_trials_per_category' }
  | { kind: 'min_evaluation_pass_rate' }
  | { kind: 'framework_failing_categories'; framework: string }
  | { kind: 'framework_coverage_pct'; framework: string }
  | { kind: 'category_asr'; category: string };

export type GateMetricKind = GateMetric['kind'];

/** One entry per metric: its spelling in expressions and what it measures (shown in errors and --help). */
export const GATE_METRIC_CATALOG: readonly { syntax: string; meaning: string }[] = [
  {
    syntax: 'new_critical_findings',
    meaning: 'findings new since the previous snapshot, or regressed, at critical severity',
  },
  { syntax: 'new_findings', meaning: 'open findings that were not open in the previous snapshot' },
  {
    syntax: 'regressed_findings',
    meaning: 'findings whose severity or score went up since the previous snapshot',
  },
  { syntax: 'open_critical_findings', meaning: 'open (not false_positive/remediated) critical findings' },
  { syntax: 'overall_asr', meaning: "the project's overall attack success rate, 0-1" },
  { syntax: 'risk_score', meaning: "the project's overall risk score, 0-10" },
  { syntax: 'min_trials_per_category', meaning: 'fewest trials behind any tested goal category' },
  {
    syntax: 'min_evaluation_pass_rate',
    meaning:
      "lowest pass rate of the project's evaluation jobs that have one (every item with an outcome), 0-1",
  },
  {
    syntax: 'framework.<framework>.failing_categories',
    meaning: 'failing categories of a compliance framework',
  },
  { syntax: 'framework.<framework>.coverage_pct', meaning: 'compliance coverage of a framework, 0-100' },
  {
    syntax: 'category.<goal_category>.asr',
    meaning:
      'ASR of a goal category pooled over assessments (successful / all attacks), 0-1; the report shows the same',
  },
];

/** A parsed gate: what to measure, how to compare, and the canonical text it is reported under. */
export interface GateExpression {
  metric: GateMetric;
  op: GateOperator;
  threshold: number;
  /** Canonical spelling, e.g. `overall_asr <= 0.25`, used as the gate's name in reports. */
  text: string;
}

/** A gate that cannot be understood; the message says which part is wrong and what is allowed. */
export class GateSyntaxError extends Error {
  override readonly name = 'GateSyntaxError';
}

const EXPRESSION = /^\s*([A-Za-z_][A-Za-z0-9_.:-]*)\s*(<=|>=|==|!=|<|>)\s*(\S+)\s*$/;
const NUMBER = /^[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$/;
// Framework keys and goal categories are snake_case in the API; `:` and `-` allow keys like LLM01:2025.
const PARAMETER = /^[A-Za-z0-9_:-]+$/;

/** Parses `metric op number`; throws GateSyntaxError with a message fit for the user. */
export function parseGateExpression(source: string): GateExpression {
  const match = EXPRESSION.exec(source);
  if (!match) {
    throw new GateSyntaxError(
      `gate ${JSON.stringify(source)} is not of the form "<metric> <operator> <number>" ` +
        `with an operator among ${GATE_OPERATORS.join(' ')}`,
    );
  }
  const [, metricText = '', opText = '', numberText = ''] = match;
  if (!NUMBER.test(numberText)) {
    throw new GateSyntaxError(
      `gate ${JSON.stringify(source)}: threshold ${JSON.stringify(numberText)} is not a number`,
    );
  }
  const metric = parseGateMetric(metricText);
  return buildGateExpression(metric, opText as GateOperator, Number(numberText));
}

/** Builds a gate from already-separated parts (the config's object form `{metric, op, threshold}`). */
export function buildGateExpression(metric: GateMetric, op: GateOperator, threshold: number): GateExpression {
  if (!Number.isFinite(threshold))
    throw new GateSyntaxError(`gate threshold must be a finite number, got ${threshold}`);
  return { metric, op, threshold, text: `${formatGateMetric(metric)} ${op} ${threshold}` };
}

/** Parses a metric name such as `category.credential_leak.asr`. */
export function parseGateMetric(text: string): GateMetric {
  const parts = text.split('.');
  if (parts.length === 1) {
    switch (text) {
      case 'new_critical_findings':
      case 'new_findings':
      case 'regressed_findings':
      case 'open_critical_findings':
      case 'overall_asr':
      case 'risk_score':
      case 'min_trials_per_category':
      case 'min_evaluation_pass_rate':
        return { kind: text };
    }
  }
  if (parts.length === 3) {
    const [scope = '', parameter = '', field = ''] = parts;
    if (PARAMETER.test(parameter)) {
      if (scope === 'framework' && field === 'failing_categories') {
        return { kind: 'framework_failing_categories', framework: parameter };
      }
      if (scope === 'framework' && field === 'coverage_pct')
        return { kind: 'framework_coverage_pct', framework: parameter };
      if (scope === 'category' && field === 'asr') return { kind: 'category_asr', category: parameter };
    }
  }
  const suggestion = nearestKey(text, GATE_METRIC_NAMES) ?? nearestPattern(text);
  throw new GateSyntaxError(
    `unknown gate metric ${JSON.stringify(text)}${suggestion ? ` (did you mean ${suggestion}?)` : ''}; known metrics: ${GATE_METRIC_CATALOG.map((m) => m.syntax).join(', ')}`,
  );
}

/** Metric names without a parameter, for did-you-mean. */
const GATE_METRIC_NAMES = GATE_METRIC_CATALOG.map((m) => m.syntax).filter((name) => !name.includes('<'));

/** `category.x.asrr` → `category.x.asr`: the nearest field of a parameterized metric, parameter kept. */
function nearestPattern(text: string): string | undefined {
  const parts = text.split('.');
  if (parts.length !== 3) return undefined;
  const [scope = '', parameter = '', field = ''] = parts;
  const fields: Record<string, string[]> = {
    framework: ['failing_categories', 'coverage_pct'],
    category: ['asr'],
  };
  const nearScope = nearestKey(scope, Object.keys(fields));
  if (nearScope === undefined) return undefined;
  const nearField = nearestKey(field, fields[nearScope] ?? []);
  return nearField === undefined ? undefined : `${nearScope}.${parameter}.${nearField}`;
}

/** The metric's spelling in expressions (inverse of parseGateMetric). */
function formatGateMetric(metric: GateMetric): string {
  switch (metric.kind) {
    case 'framework_failing_categories':
      return `framework.${metric.framework}.failing_categories`;
    case 'framework_coverage_pct':
      return `framework.${metric.framework}.coverage_pct`;
    case 'category_asr':
      return `category.${metric.category}.asr`;
    default:
      return metric.kind;
  }
}

/** True when `value op threshold` holds, i.e. the gate passes. */
export function compareGate(value: number, op: GateOperator, threshold: number): boolean {
  switch (op) {
    case '<':
      return value < threshold;
    case '<=':
      return value <= threshold;
    case '>':
      return value > threshold;
    case '>=':
      return value >= threshold;
    case '==':
      return value === threshold;
    case '!=':
      return value !== threshold;
  }
}
