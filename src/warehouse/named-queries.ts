/**
 * Named queries shipped in queries/*.sql (`airt-report query @name`). Each file starts with a comment
 * header: `-- answers:` (what it answers), `-- columns:`, `-- exclusions:`; `@list` shows them.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { UsageError, wordsFlags } from '../errors.js';

/** queries/ at the package root: two levels up from src/warehouse and from dist/warehouse. */
export const QUERIES_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'queries');

/** A named query shipped in queries/: its name, what it answers and its SQL. */
export interface NamedQuery {
  name: string;
  /** The `-- answers:` header. */
  answers: string;
  /** The whole leading comment block (answers, columns, exclusions). */
  header: string;
  sql: string;
  file: string;
}

const NAME = /^[a-z][a-z0-9_]*$/;

function parseHeader(sql: string): { header: string; answers: string } {
  const lines: string[] = [];
  for (const line of sql.split('\n')) {
    if (!line.startsWith('--')) break;
    lines.push(line.replace(/^--\s?/, ''));
  }
  const header = lines.join('\n');
  const answers = /answers:\s*([\s\S]*?)(?:\n\S+:|$)/.exec(header)?.[1]?.replace(/\s+/g, ' ').trim() ?? '';
  return { header, answers };
}

/**
 * Reads one named query (queries/<name>.sql) with its description; a usage error names the closest one for
 * a typo.
 */
export async function readNamedQuery(name: string, dir: string = QUERIES_DIR): Promise<NamedQuery> {
  if (!NAME.test(name))
    throw new UsageError(
      (option) =>
        `@${name} is not a query name (lowercase letters, digits, _). ` +
        (wordsFlags(option) ? 'See: airt-report query @list' : 'listNamedQueries() lists them.'),
    );
  const file = path.join(dir, `${name}.sql`);
  const sql = await readFile(file, 'utf8').catch(() => {
    throw new UsageError(
      (option) =>
        `No named query @${name} in ${dir}. ` +
        (wordsFlags(option) ? 'See: airt-report query @list' : 'listNamedQueries() lists them.'),
    );
  });
  return { name, ...parseHeader(sql), sql, file };
}

/** Every named query, sorted by name. */
export async function listNamedQueries(dir: string = QUERIES_DIR): Promise<NamedQuery[]> {
  const names = (await readdir(dir))
    .filter((f) => f.endsWith('.sql'))
    .map((f) => f.slice(0, -4))
    .filter((n) => NAME.test(n));
  return Promise.all(names.sort().map((name) => readNamedQuery(name, dir)));
}
