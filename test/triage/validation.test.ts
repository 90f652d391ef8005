import { describe, expect, it } from 'vitest';
import { AUTO_REFILL_BOUNDS } from '../../src/api/schemas.js';
import { validateAutoRefill } from '../../src/triage/auto-refill-request.js';
import { cliMessage, cliOptionName } from '../../src/cli/option-names.js';
import { fieldOf, formatValidationItems } from '../../src/triage/service-validation.js';
import { terminalSafe, terminalSafeJson } from '../../src/triage/terminal-text.js';
import { validateTriageChange } from '../../src/triage/triage-request.js';

const ID = '0A1B2C3D-0000-4000-8000-00000000000A';

describe('triage change validation', () => {
  it('accepts enum values (trimmed), keeps notes verbatim and lower-cases the id', () => {
    expect(validateTriageChange(` ${ID} `, { finding_status: ' remediated ', notes: '  keep  ' })).toEqual({
      ok: true,
      change: { findingId: ID.toLowerCase(), request: { finding_status: 'remediated', notes: '  keep  ' } },
    });
  });

  it('reports every problem at once', () => {
    const result = validateTriageChange('12', { finding_type: 'jail', severity: 'HIGH' });
    expect(result.ok).toBe(false);
    expect(!result.ok && result.problems.map((p) => p.field)).toEqual([
      'finding_id',
      'finding_type',
      'severity',
    ]);
  });

  it('refuses an empty change', () => {
    const result = validateTriageChange(ID, {});
    expect(!result.ok && result.problems).toEqual([{ field: 'change', message: 'nothing to change' }]);
  });
});

/** The message the CLI prints for what `run` throws (option names spelled as flags). */
function cliThrown(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    return cliMessage(error as Error);
  }
  throw new Error('expected a throw');
}

describe('auto-refill bounds', () => {
  const at = (field: 'threshold' | 'quantity' | 'monthlyCap', value: number) => ({
    enabled: true,
    threshold: 5000,
    quantity: 2,
    monthlyCap: 10,
    [field]: value,
  });

  it.each([
    ['threshold', 'threshold', '--threshold'],
    ['quantity', 'quantity', '--quantity'],
    ['monthlyCap', 'monthly_cap', '--monthly-cap'],
  ] as const)('%s: accepts both edges, refuses one past each', (key, field, flag) => {
    const { min, max } = AUTO_REFILL_BOUNDS[field];
    expect(validateAutoRefill(at(key, min))[field]).toBe(min);
    expect(validateAutoRefill(at(key, max))[field]).toBe(max);
    // The library names its option; the CLI prints the same problem with its flag.
    expect(() => validateAutoRefill(at(key, min - 1))).toThrow(`options.${key} must be at least ${min}`);
    expect(cliThrown(() => validateAutoRefill(at(key, min - 1)))).toContain(
      `${flag} must be at least ${min}`,
    );
    expect(cliThrown(() => validateAutoRefill(at(key, max + 1)))).toContain(`${flag} must be at most ${max}`);
  });

  it('requires every field and refuses non-integers', () => {
    expect(cliThrown(() => validateAutoRefill({ threshold: '1e3', quantity: '0x2' }))).toMatch(
      /pass --enabled or --no-enabled\n {2}--threshold must be an integer from 1000 to 1000000, got "1e3"\n {2}--quantity must be an integer from 1 to 10, got "0x2"\n {2}--monthly-cap is required/u,
    );
  });
});

describe('service validation errors', () => {
  it('names each field, without the body prefix', () => {
    expect(fieldOf(['body', 'monthly_cap'])).toBe('monthly_cap');
    expect(fieldOf(['query', 'items', 2, 'x'])).toBe('query.items[2].x');
    expect(
      formatValidationItems(
        [{ loc: ['body', 'monthly_cap'], msg: 'Input should be <= 50\u001b[2J', type: 'less_than_equal' }],
        (f) => (f === 'monthly_cap' ? 'monthlyCap' : undefined),
        cliOptionName,
      ),
    ).toEqual(['  monthly_cap (--monthly-cap): Input should be <= 50\\u{001b}[2J (less_than_equal)']);
    // The library names its own option, not the CLI's flag.
    expect(
      formatValidationItems(
        [{ loc: ['body', 'monthly_cap'], msg: 'too big', type: 'less_than_equal' }],
        (f) => (f === 'monthly_cap' ? 'monthlyCap' : undefined),
      ),
    ).toEqual(['  monthly_cap (options.monthlyCap): too big (less_than_equal)']);
  });
});

describe('terminal-safe text', () => {
  it('neutralizes controls and bidi overrides, folds newlines and cuts long text', () => {
    expect(terminalSafe('a\u001b]0;title\u0007b\u202Egnp.exe\nnext')).toBe(
      'a\\u{001b}]0;title\\u{0007}b\\u{202e}gnp.exe ⏎ next',
    );
    expect(terminalSafe('abcdef', 4)).toBe('abc…');
  });

  it('keeps JSON valid and the value unchanged', () => {
    const value = { notes: 'x\u202Ey\u0085z\u001b' };
    const text = terminalSafeJson(value);
    expect([...text].some((c) => ['\u202e', '\u0085', '\u001b'].includes(c))).toBe(false);
    expect(JSON.parse(text)).toEqual(value);
  });
});
