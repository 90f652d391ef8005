/**
 * The Markdown list of dated risk acceptances that end within 30 days, shared by the gate report and
 * the diff. Owner, reason and names are operator or service text: escaped for a Markdown table.
 */
import type { ExpiringAcceptance } from '../metrics/read-acceptances.js';
import { escapeMarkdownText, markdownCode } from '../text-safety.js';

/** Markdown lines listing acceptances that end soon (none when there are none). */
export function expiringAcceptancesMarkdown(
  acceptances: readonly ExpiringAcceptance[] | undefined,
): string[] {
  if (acceptances === undefined || acceptances.length === 0) return [];
  const lines = [
    `## Risk acceptances expiring within 30 days (${acceptances.length})`,
    '',
    'Once an acceptance ends its finding counts as open again (and may trip a gate); renew it or fix the finding.',
    '',
    '| Finding | Project | Severity | Accepted by | Until | Days left | Reason |',
    '| --- | --- | --- | --- | --- | ---: | --- |',
  ];
  for (const a of acceptances) {
    lines.push(
      `| ${markdownCode(a.attack_run_id)} ${escapeMarkdownText(a.attack_name ?? '')} | ${escapeMarkdownText(a.project_key)} | ` +
        `${escapeMarkdownText(a.severity)} | ${escapeMarkdownText(a.accepted_by ?? '—')} | ${escapeMarkdownText(a.accepted_until)} | ` +
        `${a.days_left} | ${escapeMarkdownText(a.reason ?? '—')} |`,
    );
  }
  lines.push('');
  return lines;
}
