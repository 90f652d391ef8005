/**
 * Attacker-controlled text (candidates, responses, goals, notes, names) made presentable before it is
 * escaped for its output context: invisible control characters that could reorder or hide text
 * (bidi overrides such as U+202E, C0/C1 controls, zero-width characters: the text-safety set) are shown visibly, lone surrogates replaced, the
 * text truncated by code points (never splitting a surrogate pair) and, with --redact, excerpts
 * replaced by a short hash so a reader can match identical values without seeing them.
 *
 * Escaping is a separate step (escape.ts), because it depends on where the text lands.
 */
import { createHash } from 'node:crypto';
import { replaceLoneSurrogates, showUnsafeCharacters } from '../text-safety.js';

/** Default for --max-text. */
export const DEFAULT_MAX_TEXT = 280;

export interface TextPolicy {
  /** Longest text shown, in code points including the ellipsis (--max-text, default 280). */
  maxText: number;
  /** Replace excerpts (candidates, responses, goals, notes, error texts) by their hash (--redact). */
  redact: boolean;
}

// Line breaks are normalized before the unsafe characters are labelled, so U+2028/2029 and NEL read as
// a new line rather than as a label.
const LINE_BREAKS = /\r\n|[\r\u0085\u2028\u2029]/gu;

function codePointLabel(char: string): string {
  const code = char.codePointAt(0) ?? 0;
  return `[U+${code.toString(16).toUpperCase().padStart(4, '0')}]`;
}

/** Shows invisible control characters visibly and normalizes line breaks; the text is otherwise kept. */
export function sanitizeText(raw: string): string {
  // The characters labelled are the shared text-safety set (controls, bidi, zero-width), so the report
  // and every other output agree on what is unsafe.
  return showUnsafeCharacters(
    replaceLoneSurrogates(raw).replace(LINE_BREAKS, '\n').replace(/\t/gu, ' '),
    codePointLabel,
  );
}

/** Truncates to at most `max` code points, the last being an ellipsis when anything was cut. */
export function truncateCodePoints(text: string, max: number): string {
  const points = Array.from(text);
  if (points.length <= max) return text;
  if (max <= 1) return '…';
  return `${points.slice(0, max - 1).join('')}…`;
}

/** The replacement --redact shows: the first 12 hex digits of the text's sha256 (of its UTF-8 bytes). */
export function redactionMarker(raw: string): string {
  return `[redacted sha256:${createHash('sha256').update(raw, 'utf8').digest('hex').slice(0, 12)}]`;
}

/**
 * Applies a TextPolicy and counts what it redacted, so the report can say how much it hid.
 * `label` is for names and identifiers (kept, only sanitized and truncated); `excerpt` is for free
 * text such as candidates, responses, goals and notes (redacted under --redact).
 */
export class TextShaper {
  #redacted = 0;

  constructor(readonly policy: TextPolicy) {
    if (!Number.isInteger(policy.maxText) || policy.maxText < 1) {
      throw new RangeError(`maxText must be a positive integer, got ${policy.maxText}`);
    }
  }

  /** How many excerpts were replaced by a hash so far. */
  get redactedCount(): number {
    return this.#redacted;
  }

  /** A name or identifier from the data; `max` shortens it further (chart axis labels). */
  label(raw: string, max: number = this.policy.maxText): string {
    return truncateCodePoints(sanitizeText(raw), Math.min(max, this.policy.maxText));
  }

  /** Free text from the data: redacted under --redact (empty text stays empty), otherwise sanitized and truncated. */
  excerpt(raw: string): string {
    if (this.policy.redact && raw.length > 0) {
      this.#redacted += 1;
      return redactionMarker(raw);
    }
    return truncateCodePoints(sanitizeText(raw), this.policy.maxText);
  }
}
