/**
 * A pooled figure must not depend on the order DuckDB meets its rows in: a sum of doubles does (0.1 +
 * 0.2 + 0.3 is 0.6000000000000001 one way and 0.6 the other), and DuckDB's threads meet rows in no fixed
 * order, so on the large preset two reads of the same database gave avg_best_score values that
 * differed in their last bits (and exports that differed). Here the same three breakdown entries are
 * stored in both orders: the figure must be the same double.
 */
import { describe, expect, it } from 'vitest';
import { openWarehouse } from '../../src/warehouse/db.js';
import { ensureSchema } from '../../src/warehouse/ddl.js';

/** metric_attack_asr's avg_best_score for entries (avg_best_score, total_attacks) stored in this order. */
async function pooledAvgBestScore(entries: readonly (readonly [number, number])[]): Promise<number> {
  const warehouse = await openWarehouse(':memory:');
  const { conn } = warehouse;
  try {
    await ensureSchema(conn);
    await conn.run(
      "INSERT INTO snapshots BY NAME SELECT 's1' AS snapshot_id, 'acme' AS org, 'main' AS workspace",
    );
    for (const [i, [score, attacks]] of entries.entries()) {
      await conn.run(
        `INSERT INTO stored_asr_breakdown BY NAME
         SELECT 'set' AS row_set, 'p1' AS project_key, $1 AS assessment_id, 'attack' AS dimension,
                'crescendo_attack' AS key, $2::DOUBLE AS avg_best_score, $3::BIGINT AS total_attacks,
                0::BIGINT AS successful_attacks, $3::BIGINT AS total_trials`,
        [`a${i}`, score, attacks],
      );
    }
    await conn.run(
      `INSERT INTO snapshot_row_sets BY NAME
       SELECT 's1' AS snapshot_id, 'asr_breakdown' AS relation, 'set' AS row_set, ${entries.length} AS rows`,
    );
    const rows = (await conn.runAndReadAll('SELECT avg_best_score FROM metric_attack_asr')).getRows();
    expect(rows).toHaveLength(1);
    return Number(rows[0]?.[0]);
  } finally {
    warehouse.close();
  }
}

describe('a pooled average over doubles', () => {
  it('is the same double whatever order its rows are stored in', async () => {
    const entries = [
      [0.1, 1],
      [0.2, 1],
      [0.3, 1],
    ] as const;
    const forward = await pooledAvgBestScore(entries);
    const backward = await pooledAvgBestScore([...entries].reverse());
    expect(forward).toBeCloseTo(0.2, 12);
    expect(backward).toBe(forward);
  });
});
