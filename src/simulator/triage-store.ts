/**
 * Operator triage state: what PATCH has set on each finding (attack run) and its append-only review
 * history. The only mutable data of the simulator besides the epoch and auto-refill settings; the
 * logical clock of an edit is the epoch's "now" plus one minute per edit, so replays are identical.
 */
import { MINUTE, epochNow, iso } from './clock.js';

export interface ReviewEventJson {
  original_finding_type: string | null;
  original_severity: string | null;
  original_status: string | null;
  updated_finding_type: string | null;
  updated_severity: string | null;
  updated_status: string | null;
  reasoning: string | null;
  updated_by: string | null;
  updated_at: string | null;
}

export interface TriageState {
  findingStatus?: string;
  findingType?: string;
  severity?: string;
  notes?: string | null;
  updatedAt?: string;
  events: ReviewEventJson[];
}

export interface TriageChange {
  finding_status?: string | null;
  finding_type?: string | null;
  severity?: string | null;
  notes?: string | null;
}

export class TriageStore {
  private readonly states = new Map<string, TriageState>();
  private edits = 0;
  /** Bumped on every edit so cached summaries know they are stale. */
  version = 0;

  get(runId: string): TriageState | undefined {
    return this.states.get(runId);
  }

  /**
   * Applies a change on top of the current values (`current` = what the finding shows now) and appends
   * one review event. Null or absent fields leave the value unchanged. An empty change records nothing.
   */
  apply(
    runId: string,
    current: { findingStatus: string; findingType: string; severity: string },
    change: TriageChange,
    epoch: number,
    updatedBy: string,
  ): TriageState {
    const state = this.states.get(runId) ?? { events: [] };
    const supplied = (['finding_status', 'finding_type', 'severity', 'notes'] as const).some(
      (k) => change[k] != null,
    );
    if (!supplied) return state;
    this.edits++;
    this.version++;
    const updatedAt = iso(epochNow(epoch) + this.edits * MINUTE);
    const next = {
      findingStatus: change.finding_status ?? current.findingStatus,
      findingType: change.finding_type ?? current.findingType,
      severity: change.severity ?? current.severity,
    };
    state.events.push({
      original_finding_type: current.findingType,
      original_severity: current.severity,
      original_status: current.findingStatus,
      updated_finding_type: next.findingType,
      updated_severity: next.severity,
      updated_status: next.findingStatus,
      reasoning: change.notes ?? null,
      updated_by: updatedBy,
      updated_at: updatedAt,
    });
    state.findingStatus = next.findingStatus;
    state.findingType = next.findingType;
    state.severity = next.severity;
    if (change.notes != null) state.notes = change.notes;
    state.updatedAt = updatedAt;
    this.states.set(runId, state);
    return state;
  }
}
