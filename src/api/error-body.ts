/**
 * Reading what a failed response says, tolerantly. The service answers errors with its envelope
 * (`code`, `type`, `detail`, `errors[]`), but a proxy in front of it may answer a 502 with an HTML
 * page, and a newer service may send an error type we do not know yet: whatever arrives, the user
 * gets the status plus the most useful text we can extract, never a JSON parse error.
 */
import { neutralizeControls } from '../text-safety.js';
import { ValidationErrorItemSchema, type ValidationErrorItem } from './schemas.js';

/** What a non-2xx body told us; every field is absent when the body did not carry it. */
export interface ErrorBodyInfo {
  /** The envelope's machine-readable `type` (any string: unknown types are kept, not dropped). */
  type?: string;
  detail?: string;
  errors?: ValidationErrorItem[];
  /** First ~200 characters of a body that is not an error envelope, with HTML tags stripped. */
  bodySnippet?: string;
}

const SNIPPET_LENGTH = 200;

/** Extracts the envelope's fields one by one, so one malformed field does not hide the others. */
export function readErrorBody(text: string): ErrorBodyInfo {
  const trimmed = text.trim();
  if (trimmed === '') return {};
  let data: unknown;
  try {
    data = JSON.parse(trimmed);
  } catch {
    return { bodySnippet: textSnippet(trimmed) };
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    return { bodySnippet: textSnippet(trimmed) };
  }
  const envelope = data as Record<string, unknown>;
  const info: ErrorBodyInfo = {};
  if (typeof envelope.type === 'string') info.type = envelope.type;
  if (typeof envelope.detail === 'string') info.detail = envelope.detail;
  if (Array.isArray(envelope.errors)) {
    info.errors = envelope.errors.flatMap((item) => {
      const parsed = ValidationErrorItemSchema.safeParse(item);
      return parsed.success ? [parsed.data] : [];
    });
  }
  if (info.type === undefined && info.detail === undefined) info.bodySnippet = textSnippet(trimmed);
  return info;
}

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

// Kept as an export here for existing importers; the rule itself lives in the text-safety leaf module.
export { neutralizeControls };

/**
 * Removes a secret from text before it is stored in an error or printed: a service (or a proxy) that
 * echoes the Authorization header back must not make the token appear in our messages. Replaces the
 * raw form and its JSON-escaped form, so redacting JSON text keeps it valid JSON.
 */
export function redactSecret(text: string, secret: string | undefined): string {
  if (!secret) return text;
  let out = text.split(secret).join('[redacted]');
  const jsonEscaped = JSON.stringify(secret).slice(1, -1);
  if (jsonEscaped !== secret) out = out.split(jsonEscaped).join('[redacted]');
  return out;
}
