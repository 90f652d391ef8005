/**
 * Shaping plus escaping of data text for one render (see view.ts), and the allowlisted CSS classes
 * derived from data values.
 */
import { riskBand } from './format.js';
import { SEVERITY_LEVELS, type Exclusion, type Sentence } from './model.js';
import { Escaped, type OutputContext } from './output-context.js';
import type { TextShaper } from './untrusted-text.js';

/** A chart as templates see it. */
export interface ChartView {
  name: string;
  title: Escaped;
  /** Inline SVG (HTML output): produced by our own renderer from our own spec, the one raw insertion. */
  svg: Escaped | null;
  /** Relative paths of the files beside a Markdown report. */
  svgFile: string;
  specFile: string;
  pngFile: string | null;
}

/** Shapes and escapes data text for one render; shared by the section builders. */
export class ViewText {
  constructor(
    readonly context: OutputContext,
    readonly shaper: TextShaper,
  ) {}

  /** A name or identifier from the data. */
  label(raw: string): Escaped {
    return new Escaped(this.context.text(this.shaper.label(raw)));
  }

  /** A nullable name; null stays null (templates show "unknown"). */
  maybeLabel(raw: string | null): Escaped | null {
    return raw === null ? null : this.label(raw);
  }

  /** Free text (candidate, response, goal, notes): redacted under --redact. */
  excerpt(raw: string | null): Escaped | null {
    return raw === null ? null : new Escaped(this.context.text(this.shaper.excerpt(raw)));
  }

  /** An identifier shown as code. */
  code(raw: string): Escaped {
    return new Escaped(this.context.code(this.shaper.label(raw)));
  }

  maybeCode(raw: string | null): Escaped | null {
    return raw === null ? null : this.code(raw);
  }

  /** A generated sentence: our words as they are, data parts escaped. */
  sentence(sentence: Sentence): Escaped {
    return new Escaped(
      sentence
        .map((part) =>
          part.kind === 'text'
            ? this.context.own(part.value)
            : this.context.text(this.shaper.label(part.value)),
        )
        .join(''),
    );
  }

  exclusion(exclusion: Exclusion): { field: Escaped; count: number; assessments: Escaped } {
    return {
      field: this.code(exclusion.field),
      count: exclusion.assessments.length,
      assessments: new Escaped(exclusion.assessments.map((name) => this.label(name).value).join(', ')),
    };
  }
}

/** CSS class suffix for a severity: one of ours, whatever the data says. */
export function severityClass(severity: string | null): string {
  return SEVERITY_LEVELS.find((level) => level === severity) ?? 'unknown';
}

/** CSS class suffix for a risk score or level. */
export function riskClass(score: number | null, level: string | null): string {
  return riskBand(score) ?? severityClass(level?.toLowerCase() ?? null);
}
