/** SQL text helpers: identifiers and literals are quoted here and nowhere else. */

/** "name" with embedded quotes doubled. */
export function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/**
 * 'text' with embedded quotes doubled, for the few places DuckDB takes no bound parameter (table
 * function arguments such as file lists, COPY targets). Never used for values a query could bind.
 */
export function quoteLiteral(text: string): string {
  if (text.includes('\0')) throw new Error('NUL byte in an SQL literal');
  return `'${text.replaceAll("'", "''")}'`;
}
