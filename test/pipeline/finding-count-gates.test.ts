/**
 * Which findings of unknown severity (not comparable in the lifecycle) a diff count gate could count:
 * hand-made finding pairs at the edges of the lifecycle's rules, each compared with what the rule says.
 */
import { describe, expect, it } from 'vitest';
import { diffFindings, UNKNOWN_SEVERITY, type FindingRecord } from '../../src/diff/finding-lifecycle.js';
import { couldCountFindings, type DiffCountMetric } from '../../src/pipeline/finding-count-gates.js';

function finding(
  id: string,
  severity: string,
  score: number | null,
  status: string | null = null,
): FindingRecord {
  return {
    attack_run_id: id,
    assessment_id: 'a1',
    assessment_name: null,
    attack_name: 'tap_attack',
    goal_category: 'credential_leak',
    goal: `goal ${id}`,
    severity,
    score,
    finding_status: status,
  };
}
const unknown = (id: string): FindingRecord => finding(id, UNKNOWN_SEVERITY, null);

/** The gates that could count the one pair `from` → `to`. */
function gatesCounting(from: FindingRecord | null, to: FindingRecord | null): DiffCountMetric[] {
  const lifecycle = diffFindings(from === null ? [] : [from], to === null ? [] : [to]);
  expect(lifecycle.not_comparable).toHaveLength(1);
  return (['new_findings', 'regressed_findings', 'new_critical_findings'] as const).filter(
    (kind) => couldCountFindings(kind, lifecycle).length > 0,
  );
}

describe('findings of unknown severity a count gate could count', () => {
  it('unknown now, absent before: could be new, and new at critical, never regressed', () => {
    expect(gatesCounting(null, unknown('r'))).toEqual(['new_findings', 'new_critical_findings']);
  });

  it('unknown now, known before: could have regressed, not be new', () => {
    expect(gatesCounting(finding('r', 'info', 0.1), unknown('r'))).toEqual([
      'regressed_findings',
      'new_critical_findings',
    ]);
    // Open critical before: it may have a higher score now (regressed), but not newly critical.
    expect(gatesCounting(finding('r', 'critical', 0.95), unknown('r'))).toEqual(['regressed_findings']);
    // Closed critical before: open now at any severity is a reopening, at critical a new critical.
    expect(gatesCounting(finding('r', 'critical', 1, 'remediated'), unknown('r'))).toEqual([
      'regressed_findings',
      'new_critical_findings',
    ]);
  });

  it('a score at the top of the scale before: nothing can be worse now', () => {
    expect(gatesCounting(finding('r', 'critical', 1), unknown('r'))).toEqual([]);
    // A score just under a band's top can still rise inside the band.
    expect(gatesCounting(finding('r', 'high', 0.8999), unknown('r'))).toContain('regressed_findings');
  });

  it('unknown before, known now: could have regressed to what it is now, only if tracked now', () => {
    expect(gatesCounting(unknown('r'), finding('r', 'critical', 0.95))).toEqual([
      'regressed_findings',
      'new_critical_findings',
    ]);
    expect(gatesCounting(unknown('r'), finding('r', 'medium', 0.6))).toEqual(['regressed_findings']);
    expect(gatesCounting(unknown('r'), finding('r', 'info', 0.1))).toEqual([]);
    expect(gatesCounting(unknown('r'), finding('r', 'critical', 0.95, 'false_positive'))).toEqual([]);
    expect(gatesCounting(unknown('r'), null)).toEqual([]);
  });

  it('unknown on both sides: could have regressed, even to critical, never be new', () => {
    expect(gatesCounting(unknown('r'), unknown('r'))).toEqual([
      'regressed_findings',
      'new_critical_findings',
    ]);
  });
});
