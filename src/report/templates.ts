/**
 * Loading and compiling report templates: `templates/<format>/<kind>.hbs` plus the partials in
 * `templates/<format>/partials/*.hbs`, from the built-in directory or a user's copy (--templates).
 *
 * Each load uses an isolated `Handlebars.create()` environment (no global helpers or partials), compiled
 * with `strict: true` (a missing field is an error, not an empty string) and `knownHelpersOnly`.
 * A partial referenced but missing is reported by name with the file expected, before rendering.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Handlebars from 'handlebars';
import { CliError } from '../errors.js';
import { REPORT_HELPER_NAMES, registerReportHelpers } from './helpers.js';
import type { ReportKind } from './model.js';
import type { TemplateFormat } from './output-context.js';

/** The templates shipped with the tool (two levels up from src/report or dist/report). */
export const BUILTIN_TEMPLATES_DIR = fileURLToPath(new URL('../../templates/', import.meta.url));

const PARTIAL_REFERENCE = /\{\{~?#?>\s*([A-Za-z0-9_-]+)/gu;

export type CompiledTemplate = (view: Record<string, unknown>) => string;

function compileOptions(): CompileOptions {
  return {
    strict: true,
    knownHelpersOnly: true,
    knownHelpers: Object.fromEntries(REPORT_HELPER_NAMES.map((name) => [name, true])),
    preventIndent: true,
  };
}

type CompileOptions = NonNullable<Parameters<typeof Handlebars.compile>[1]>;

async function readTemplate(file: string, what: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new CliError(
        `Template ${what} not found: expected ${file}. Copy it from ${BUILTIN_TEMPLATES_DIR}.`,
      );
    }
    throw error;
  }
}

/**
 * Compiles the template of one report kind and format, with its partials, from `dir` (default: the
 * built-in templates). Throws a CliError naming any missing template or partial file.
 */
export async function loadTemplate(
  kind: ReportKind,
  format: TemplateFormat,
  dir: string = BUILTIN_TEMPLATES_DIR,
): Promise<CompiledTemplate> {
  const root = path.resolve(dir);
  const formatDir = path.join(root, format);
  const partialsDir = path.join(formatDir, 'partials');
  const mainSource = await readTemplate(path.join(formatDir, `${kind}.hbs`), `"${format}/${kind}.hbs"`);

  let partialFiles: string[];
  try {
    partialFiles = (await readdir(partialsDir)).filter((name) => name.endsWith('.hbs')).sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') partialFiles = [];
    else throw error;
  }
  const partialSources = new Map<string, string>();
  for (const file of partialFiles) {
    partialSources.set(file.slice(0, -'.hbs'.length), await readFile(path.join(partialsDir, file), 'utf8'));
  }

  // Every partial reachable from the main template must exist; name the first missing one.
  const pending = [mainSource];
  const seen = new Set<string>();
  while (pending.length > 0) {
    const source = pending.pop() ?? '';
    for (const match of source.matchAll(PARTIAL_REFERENCE)) {
      const name = match[1] ?? '';
      if (seen.has(name)) continue;
      seen.add(name);
      const partial = partialSources.get(name);
      if (partial === undefined) {
        throw new CliError(
          `Template partial "${name}" not found: expected ${path.join(partialsDir, `${name}.hbs`)} ` +
            `(used by the ${format} ${kind} template). Copy it from ${path.join(BUILTIN_TEMPLATES_DIR, format, 'partials')}.`,
        );
      }
      pending.push(partial);
    }
  }

  const environment = Handlebars.create();
  registerReportHelpers(environment);
  const options = compileOptions();
  try {
    for (const [name, source] of partialSources) {
      environment.registerPartial(name, environment.compile(source, options));
    }
    const template = environment.compile(mainSource, options);
    return (view) => template(view);
  } catch (error) {
    throw new CliError(
      `Template ${formatDir} could not be compiled: ${(error as Error).message}`,
      undefined,
      {
        cause: error,
      },
    );
  }
}

/** Runs a compiled template, turning Handlebars' strict-mode errors into a message naming the template. */
export function runTemplate(template: CompiledTemplate, view: Record<string, unknown>, what: string): string {
  try {
    return template(view);
  } catch (error) {
    // Handlebars compiles lazily, so syntax errors, strict-mode misses and missing partials all surface here.
    if (error instanceof Handlebars.Exception || error instanceof Error) {
      throw new CliError(`Template ${what} failed: ${error.message}`, undefined, { cause: error });
    }
    throw error;
  }
}
