/**
 * Credit auto-refill: validate locally (auto-refill-request.ts), PUT, and read the answer for things
 * the operator must know — no payment method, or a reason the service disabled auto-refill — which
 * are returned as warnings rather than buried in the table.
 */
import type { ApiClient } from '../api/client-types.js';
import { isResponseSchemaError } from '../api/errors.js';
import type { AutoRefillConfigResponse, ConfigureAutoRefillRequest } from '../api/schemas.js';
import { withFieldErrors } from './service-validation.js';
import { terminalSafe } from './terminal-text.js';

/** The organization's credits auto-refill setting after configureAutoRefill. */
export interface AutoRefillResult {
  request: ConfigureAutoRefillRequest;
  /** The validated response; absent when the body did not match the schema (see `raw`). */
  config?: AutoRefillConfigResponse;
  /** The body as received when it did not match the schema (the settings were still applied). */
  raw?: unknown;
  /** Keys the spec does not know, e.g. `$.new_field`. */
  unknownKeys: string[];
  /** Things to call out on stderr: no payment method, a disabled reason, a response we could not read. */
  warnings: string[];
}

/** The library option that sets each body field (the CLI spells it as its flag). */
const OPTION_OF_FIELD: Record<string, string> = {
  enabled: 'enabled',
  monthly_cap: 'monthlyCap',
  quantity: 'quantity',
  threshold: 'threshold',
};

/**
 * PUTs the (already validated) settings. A 422 is rethrown with its `errors[]` field by field; other
 * failures propagate as the client's typed errors.
 */
export async function configureAutoRefill(
  client: Pick<ApiClient, 'configureAutoRefill'>,
  org: string,
  request: ConfigureAutoRefillRequest,
): Promise<AutoRefillResult> {
  try {
    const { value, unknownKeys } = await client.configureAutoRefill(org, request);
    return { request, config: value, unknownKeys, warnings: autoRefillWarnings(request, value) };
  } catch (error) {
    if (isResponseSchemaError(error) && error.status >= 200 && error.status < 300) {
      return {
        request,
        raw: error.body,
        unknownKeys: error.unknownKeys,
        warnings: [`The settings were applied, but the answer could not be read: ${error.message}`],
      };
    }
    throw withFieldErrors(error, (field) => OPTION_OF_FIELD[field]);
  }
}

/** Warnings about a successful answer. */
function autoRefillWarnings(request: ConfigureAutoRefillRequest, config: AutoRefillConfigResponse): string[] {
  const warnings: string[] = [];
  if (!config.has_payment_method) {
    warnings.push(
      'The organization has no payment method (has_payment_method: false): auto-refill cannot buy ' +
        'credits until one is added in the service.',
    );
  }
  if (config.disabled_reason) {
    warnings.push(
      `Auto-refill is disabled (disabled_reason: ${terminalSafe(config.disabled_reason, 300)})` +
        (request.enabled ? ' although it was requested enabled.' : '.'),
    );
  } else if (request.enabled && !config.enabled) {
    warnings.push('Auto-refill was requested enabled but the service reports it disabled (no reason given).');
  }
  return warnings;
}
