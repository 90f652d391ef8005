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

/**
 * ASCII punctuation that means something to GitHub-flavoured Markdown: emphasis, code, links and
 * images, raw HTML and entities, table pipes, headings and lists, autolinks (`:` of a scheme, `@` of
 * an e-mail, `.` of `www.`), math (`$`) and emoji shortcodes (`:`). CommonMark lets any ASCII
 * punctuation be backslash-escaped, and GFM tables treat `\|` as a literal pipe.
 */
const MARKDOWN_SPECIAL = /[\\`*_{}[\]()<>#+\-.!|~&:@$=]/gu;

/**
 * Markdown inline text, safe in paragraphs, list items, headings and table cells: line breaks become a
 * visible "↵" (a newline would end a table row or paragraph) and every special character is escaped,
 * so no emphasis, link, image, autolink, raw HTML or extra cell can come from the data.
 */
export function escapeMarkdownText(text: string): string {
  return text
    .replace(/\r\n|[\r\n\u0085\u2028\u2029]/gu, ' ↵ ')
    .replace(MARKDOWN_SPECIAL, (char) => `\\${char}`);
}

// One code-span rule for every Markdown output (reports, diff, gate report): see text-safety.ts.
export { markdownCode } from '../text-safety.js';
