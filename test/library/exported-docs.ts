/**
 * Which names a public entry point exports without JSDoc: reads the entry with the TypeScript
 * compiler, follows each export to its declaration and asks for its documentation comment.
 */
import ts from 'typescript';

/** Exported names of `entry` whose declaration carries no JSDoc comment, sorted. */
export function undocumentedExports(entry: string, tsconfig: string): string[] {
  const config = ts.readConfigFile(tsconfig, (file) => ts.sys.readFile(file));
  const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, tsconfig.replace(/[^/]+$/u, ''));
  const program = ts.createProgram([entry], { ...parsed.options, noEmit: true });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(entry);
  if (!source) throw new Error(`Cannot read ${entry}`);
  const moduleSymbol = checker.getSymbolAtLocation(source);
  if (!moduleSymbol) return [];
  const missing: string[] = [];
  for (const exported of checker.getExportsOfModule(moduleSymbol)) {
    const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
    // A namespace re-export (`export * as schemas`) is documented on its export statement.
    const onExport = (exported.declarations ?? []).some(
      (declaration) => ts.getJSDocCommentsAndTags(declaration.parent).length > 0,
    );
    const documented =
      onExport ||
      symbol.getDocumentationComment(checker).length > 0 ||
      (symbol.declarations ?? []).some((declaration) => ts.getJSDocCommentsAndTags(declaration).length > 0);
    if (!documented) missing.push(exported.getName());
  }
  return missing.sort();
}
