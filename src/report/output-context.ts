/**
 * The two template output contexts and the already-escaped value type templates receive.
 *
 * Templates never see a raw string from the data: the view builder shapes it (untrusted-text.ts) and
 * escapes it for the format here, wrapping the result in `Escaped`. Handlebars prints an object with
 * `toHTML()` as is (like its own SafeString) and escapes everything else, so in HTML a value that was
 * not prepared this way is still escaped by Handlebars' default.
 */
import { escapeHtml, escapeMarkdownText, markdownCode } from './escape.js';

/** Text already escaped for its output context; Handlebars prints `toHTML()` verbatim. */
export class Escaped {
  constructor(readonly value: string) {}
  toHTML(): string {
    return this.value;
  }
  toString(): string {
    return this.value;
  }
}

export type TemplateFormat = 'md' | 'html';

export interface OutputContext {
  format: TemplateFormat;
  /** Data text in running text, headings, table cells and (HTML) quoted attributes. */
  text(raw: string): string;
  /** An identifier shown as code (snapshot ids, hashes, field names). */
  code(raw: string): string;
  /** Our own wording (generated sentences): must not need escaping in Markdown; HTML-escaped anyway. */
  own(text: string): string;
}

/**
 * A line-break opportunity after each underscore of escaped HTML text, so a narrow table cell wraps
 * an identifier (`echo_chamber_attack`) at its parts instead of mid-word; browsers already break
 * after a hyphen. Escaped text holds no "_" of its own (entities are `&lt;`, `&#x3D;`, …).
 */
export function breakIdentifiers(escaped: string): string {
  return escaped.replaceAll('_', '_<wbr>');
}

export const HTML_CONTEXT: OutputContext = {
  format: 'html',
  text: (raw) => breakIdentifiers(escapeHtml(raw)),
  code: (raw) => `<code>${breakIdentifiers(escapeHtml(raw))}</code>`,
  own: escapeHtml,
};

export const MARKDOWN_CONTEXT: OutputContext = {
  format: 'md',
  text: escapeMarkdownText,
  code: markdownCode,
  own: (text) => text,
};

export function outputContext(format: TemplateFormat): OutputContext {
  return format === 'html' ? HTML_CONTEXT : MARKDOWN_CONTEXT;
}
