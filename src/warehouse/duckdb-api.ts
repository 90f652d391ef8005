/**
 * The values of @duckdb/node-api the warehouse uses, loaded with require(). The package is CommonJS:
 * importing it from an ES module makes Node scan every one of its files for the names they export
 * (cjs-module-lexer) before it runs them, ~195 ms against ~95 ms for require() on a 2-core machine,
 * paid by every command that opens a database (a nightly load, a query). Types come from the package
 * itself (`import type`), which costs nothing at run time.
 */
import { createRequire } from 'node:module';
import type * as DuckDB from '@duckdb/node-api';

const duckdb = createRequire(import.meta.url)('@duckdb/node-api') as typeof DuckDB;

export const DuckDBInstance = duckdb.DuckDBInstance;
export type DuckDBInstance = DuckDB.DuckDBInstance;
export const DuckDBTypeId = duckdb.DuckDBTypeId;
export type DuckDBTypeId = DuckDB.DuckDBTypeId;
export const StatementType = duckdb.StatementType;
export type StatementType = DuckDB.StatementType;
export const LIST = duckdb.LIST;
export const VARCHAR = duckdb.VARCHAR;
