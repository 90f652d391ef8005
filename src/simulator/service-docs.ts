/**
 * The two small documents of the service: the public client configuration (operation 6) and the
 * organization's credit auto-refill settings (operation 3).
 */
import { epochNow } from './clock.js';

export const SIM_API_VERSION = '1.4.0';
const SIM_APP_VERSION = '2026.1.2-sim';

export function configJson(): Record<string, unknown> {
  return {
    api_version: SIM_API_VERSION,
    app_version: SIM_APP_VERSION,
    deployment_mode: 'saas',
    website_url: 'https://airt.example.test',
    account_defender_enabled: false,
    account_defender_site_key: null,
    airgapped: false,
    credits_enabled: true,
    docs_url: 'https://docs.airt.example.test',
    install_url: 'https://airt.example.test/install',
    email_configured: true,
    feedback_diagnostics: false,
    feedback_enabled: true,
    integrations_enabled: true,
    recaptcha_enabled: false,
    recaptcha_site_key: null,
    slack_enabled: false,
  };
}

export interface AutoRefillSettings {
  enabled: boolean;
  monthly_cap: number;
  quantity: number;
  threshold: number;
}

/**
 * The stored settings as AutoRefillConfigResponse. Without a payment method auto-refill stays off
 * whatever was requested, and `disabled_reason` says why.
 */
export function autoRefillJson(
  settings: AutoRefillSettings,
  hasPaymentMethod: boolean,
  epoch: number,
): Record<string, unknown> {
  const now = new Date(epochNow(epoch));
  const monthReset = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString();
  const enabled = settings.enabled && hasPaymentMethod;
  return {
    enabled,
    has_payment_method: hasPaymentMethod,
    month_count: 0,
    month_reset: monthReset,
    monthly_cap: settings.monthly_cap,
    quantity: settings.quantity,
    threshold: settings.threshold,
    disabled_reason: enabled ? null : settings.enabled ? 'no_payment_method' : 'disabled_by_user',
  };
}
