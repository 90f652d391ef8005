/**
 * A short, readable, single-line excerpt of text a service sent (an HTML error page, a malformed
 * address): its own module, without the API schemas, so that checking connection settings — which
 * every command that talks to the service does at start — does not load zod and every schema.
 */
import { neutralizeControls } from '../text-safety.js';

const SNIPPET_LENGTH = 200;

/**
 * A short, single-line, readable excerpt of a body: scripts and styles dropped, tags stripped, common
 * entities decoded, whitespace collapsed, cut to ~200 characters.
 */
export function textSnippet(text: string, length = SNIPPET_LENGTH): string {
  const plain = text
    .replace(/<(script|style)\b[^>]*>[\s\S]*?<\/\1\s*>/gi, ' ')
    .replace(/<!--[\s\S]*?-->/g, ' ')
    .replace(/<[^>]*>/g, ' ')
    .replace(/&nbsp;/gi, ' ')
    .replace(/&lt;/gi, '<')
    .replace(/&gt;/gi, '>')
    .replace(/&quot;/gi, '"')
    .replace(/&#39;/gi, "'")
    .replace(/&amp;/gi, '&')
    .replace(/\s+/g, ' ')
    .trim();
  const safe = neutralizeControls(plain);
  return safe.length > length ? `${safe.slice(0, length)}…` : safe;
}
