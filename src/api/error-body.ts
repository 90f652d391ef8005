/**
 * Reading what a failed response says, tolerantly. The service answers errors with its envelope
 * (`code`, `type`, `detail`, `errors[]`), but a proxy in front of it may answer a 502 with an HTML
 * page, and a newer service may send an error type we do not know yet: whatever arrives, the user
 * gets the status plus the most useful text we can extract, never a JSON parse error.
 */
import { neutralizeControls } from '../text-safety.js';
import { ValidationErrorItemSchema, type ValidationErrorItem } from './schemas.js';
import { textSnippet } from './text-snippet.js';

/** What a non-2xx body told us; every field is absent when the body did not carry it. */
export interface ErrorBodyInfo {
  /** The envelope's machine-readable `type` (any string: unknown types are kept, not dropped). */
  type?: string;
  detail?: string;
  errors?: ValidationErrorItem[];
  /** First ~200 characters of a body that is not an error envelope, with HTML tags stripped. */
  bodySnippet?: string;
}

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

// Kept as exports here for existing importers; the rules themselves live in their own modules.
export { neutralizeControls, textSnippet };

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
