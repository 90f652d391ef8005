/**
 * What every CLI invocation loads before a command runs: the static import closure of src/cli/main.ts
 * (commands load their library code inside `run`, see src/cli/command.ts). zod and the ~800-line API
 * schemas cost a noticeable part of Node's start, and `--version`, `--help` or a snapshot's argument
 * check need neither; they came in through the connection settings' text helper.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));

/** Static value imports and re-exports of a source file (not `import type`, not `import()`). */
function staticImports(file: string): string[] {
  const code = readFileSync(file, 'utf8')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/\/\/.*$/gm, '');
  const specifiers: string[] = [];
  for (const match of code.matchAll(/^\s*(?:import|export)\s+(?!type\b)([^;]*?)\s+from\s+'([^']+)'/gm)) {
    specifiers.push(match[2]!);
  }
  for (const match of code.matchAll(/^\s*import\s+'([^']+)'/gm)) specifiers.push(match[1]!);
  return specifiers;
}

/** Every module main.ts loads at start: source files (relative to src/) and packages by name. */
function startClosure(): { files: Set<string>; packages: Set<string> } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const queue = [path.join(SRC, 'cli', 'main.ts')];
  while (queue.length > 0) {
    const file = queue.pop()!;
    const relative = path.relative(SRC, file);
    if (files.has(relative)) continue;
    files.add(relative);
    for (const specifier of staticImports(file)) {
      if (specifier.startsWith('.'))
        queue.push(path.resolve(path.dirname(file), specifier.replace(/\.js$/, '.ts')));
      else if (!specifier.startsWith('node:')) packages.add(specifier.split('/')[0]!);
    }
  }
  return { files, packages };
}

describe('CLI start', () => {
  it('loads neither zod nor the API schemas before a command runs', () => {
    const { files, packages } = startClosure();
    // The walk itself works: the command registry and yargs are part of every start.
    expect(files).toContain(path.join('cli', 'commands', 'index.ts'));
    expect(packages).toContain('yargs');
    expect(packages).not.toContain('zod');
    expect(files).not.toContain(path.join('api', 'schemas.ts'));
  });
});
