/**
 * Schema drift between two snapshots: the unknown keys (keys the API spec does not know) each
 * manifest recorded per file kind, compared. A key that appears means the service started sending a
 * new field; one that disappears means it stopped.
 */

export interface SchemaDriftChange {
  /** Manifest file kind, e.g. `project_summary`. */
  file_kind: string;
  added: string[];
  removed: string[];
}

/** Per file kind, keys added and removed; kinds without change are left out. Sorted. */
export function diffSchemaDrift(
  from: Readonly<Record<string, readonly string[]>> | null,
  to: Readonly<Record<string, readonly string[]>>,
): SchemaDriftChange[] {
  const kinds = [...new Set([...Object.keys(from ?? {}), ...Object.keys(to)])].sort();
  const changes: SchemaDriftChange[] = [];
  for (const kind of kinds) {
    const before = new Set(from?.[kind] ?? []);
    const after = new Set(to[kind] ?? []);
    const added = [...after].filter((key) => !before.has(key)).sort();
    const removed = [...before].filter((key) => !after.has(key)).sort();
    if (added.length > 0 || removed.length > 0) changes.push({ file_kind: kind, added, removed });
  }
  return changes;
}
