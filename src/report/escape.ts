/**
 * Escaping for each output context. Every string that came from the data passes through exactly one
 * of these on its way into a report; our own wording passes through them too, harmlessly.
 */

const HTML_ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#x27;',
  '`': '&#x60;',
  '=': '&#x3D;',
};

/** HTML text and quoted attribute values (the same set Handlebars escapes). */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"'`=]/gu, (char) => HTML_ESCAPES[char] ?? char);
}

// Markdown escaping (inline text and code spans) lives with the other text-safety rules.
export { escapeMarkdownText, markdownCode } from '../text-safety.js';
