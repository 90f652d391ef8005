/**
 * Output of `credits auto-refill`: the settings the service now holds, as a table or JSON.
 */
import type { AutoRefillResult } from './auto-refill.js';
import { renderKeyValues } from './format-table.js';
import { terminalSafeJson } from './terminal-text.js';

const NONE = '—';

export function formatAutoRefillTable(result: AutoRefillResult): string {
  const { config } = result;
  if (!config)
    return `The service's answer as received (it does not match the API schema):\n${terminalSafeJson(result.raw)}\n`;
  const text = (value: number | string | null | undefined): string =>
    value === null || value === undefined ? NONE : String(value);
  return renderKeyValues([
    ['Enabled', config.enabled ? 'yes' : 'no'],
    ['Has payment method', config.has_payment_method ? 'yes' : 'no'],
    ['Threshold', text(config.threshold)],
    ['Quantity', text(config.quantity)],
    ['Monthly cap', text(config.monthly_cap)],
    ['Refills this month', text(config.month_count)],
    ['Month resets at', text(config.month_reset)],
    ['Disabled reason', text(config.disabled_reason)],
  ]);
}

export function formatAutoRefillJson(result: AutoRefillResult): string {
  return `${terminalSafeJson({
    request: result.request,
    response: result.config ?? result.raw ?? null,
    mismatches: result.mismatches,
    warnings: result.warnings,
    unknown_keys: result.unknownKeys,
  })}\n`;
}
