import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import Ajv2020 from 'ajv/dist/2020.js';
import { parse as parseYaml } from 'yaml';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { editDistance, nearestKey } from '../../src/nearest-name.js';
import {
  loadRunConfig,
  parseRunConfig,
  resolveRunToken,
  runConfigJsonSchema,
} from '../../src/pipeline/run-config.js';
import { makeTempDir } from '../helpers/temp-dirs.js';

const examplePath = new URL('../../examples/airt-report.yaml', import.meta.url).pathname;
const where = { file: 'airt-report.yaml', absolute: '/etc/airt/airt-report.yaml' };
const minimal = 'connection: {base_url: "http://127.0.0.1:1", org: acme, workspace: main}\n';

function errorOf(text: string): string {
  try {
    parseRunConfig(text, where);
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return (error as Error).message;
  }
  throw new Error('expected the config to be refused');
}

describe('run config', () => {
  it('accepts the commented example, and the example fits the JSON Schema', async () => {
    const config = await loadRunConfig(examplePath, '/');
    expect(config.connection.org).toBe('acme');
    expect(config.gates.map((g) => g.expression.text)).toEqual([
      'new_critical_findings <= 0',
      'overall_asr <= 0.25',
      'framework.owasp_llm.failing_categories <= 2',
      'category.credential_leak.asr <= 0.1',
      'min_trials_per_category >= 20',
      'risk_score < 8',
    ]);
    expect(config.gates[5]?.project).toBe('customer-support-bot');
    expect(config.database).toBe(path.join(path.dirname(examplePath), 'airt.duckdb'));
    const { readFile } = await import('node:fs/promises');
    const ajv = new Ajv2020.default({ strict: false, formats: { uri: true } });
    const validate = ajv.compile(runConfigJsonSchema());
    expect(validate(parseYaml(await readFile(examplePath, 'utf8')))).toBe(true);
  });

  it('fills defaults and resolves paths against the config file', () => {
    const config = parseRunConfig(minimal, where);
    expect(config.snapshot).toEqual({
      out_dir: '/etc/airt/snapshots',
      concurrency: 8,
      trials_limit: 5000,
      jailbreaks_only: false,
    });
    expect(config.database).toBe('/etc/airt/airt.duckdb');
    expect(config.retention.keep_last).toBeNull();
    expect(config.bundle).toEqual({ enabled: true, include_snapshot: false });
    expect(config.reports[0]).toMatchObject({ kind: 'executive', formats: ['md', 'html'] });
    expect(Object.isFrozen(config.snapshot)).toBe(true);
  });

  it('names the file and key path of every error', () => {
    const message = errorOf(
      `${minimal}gates:\n  - overall_asr <= 0.2\n  - risk_score < 5\n  - {metric: overall_asr, op: '<=', threshold: high}\n`,
    );
    expect(message).toContain('airt-report.yaml: gates[2].threshold: expected number, received string');
    expect(errorOf(`${minimal}snapshot: {concurrency: 0}\n`)).toContain(
      'airt-report.yaml: snapshot.concurrency:',
    );
    expect(errorOf(`${minimal}reports: [{kind: weekly}]\n`)).toContain('airt-report.yaml: reports[0].kind:');
  });

  it('refuses unknown metrics, malformed gates and a token in the file', () => {
    expect(errorOf(`${minimal}gates: [ "overal_asr <= 1" ]\n`)).toMatch(
      /gates\[0\]: unknown gate metric "overal_asr"/,
    );
    expect(errorOf(`${minimal}gates: [ "overall_asr => 1" ]\n`)).toMatch(
      /gates\[0\]: gate .* is not of the form/,
    );
    expect(errorOf(`${minimal}gates: [ {metric: foo, op: '<', threshold: 1} ]\n`)).toContain(
      'gates[0].metric: unknown gate metric',
    );
    const token = errorOf('connection: {base_url: "http://x", org: a, workspace: b, token: s3cret}\n');
    expect(token).toContain('connection.token: tokens are never read from the config file');
    expect(token).not.toContain('s3cret');
    expect(errorOf(`${minimal}colour: blue\n`)).toContain('airt-report.yaml: colour: unknown key');
  });

  it('suggests the nearest known key for a mistyped one, naming the file and key path', () => {
    const message = errorOf(
      `${minimal}snapshot: {concurency: 4}\nreports: [{kind: executive, fromats: [md]}]\n` +
        `gates: [{metric: overall_asr, op: '<=', threshold: 1, projet: demo}]\nretension: {keep_last: 1}\n`,
    );
    expect(message).toContain(
      'airt-report.yaml: snapshot.concurency: unknown key; did you mean concurrency?',
    );
    expect(message).toContain('airt-report.yaml: reports[0].fromats: unknown key; did you mean formats?');
    expect(message).toContain('airt-report.yaml: gates[0].projet: unknown key; did you mean project?');
    expect(message).toContain('airt-report.yaml: retension: unknown key; did you mean retention?');
    // Nothing close: no guess.
    expect(errorOf(`${minimal}colour: blue\n`)).toMatch(/colour: unknown key\n/);
  });

  it('finds the nearest key by edit distance, only when it is close', () => {
    expect(editDistance('concurency', 'concurrency')).toBe(1);
    expect(editDistance('', 'abc')).toBe(3);
    expect(editDistance('kitten', 'sitting')).toBe(3);
    expect(nearestKey('Database', ['database', 'output_dir'])).toBe('database');
    expect(nearestKey('colour', ['connection', 'projects', 'reports'])).toBeUndefined();
    expect(nearestKey('a', ['b'])).toBe('b');
  });

  it('reports YAML and JSON syntax errors with their position', () => {
    expect(errorOf('connection: {base_url: "x"\n')).toMatch(/^airt-report\.yaml:\d+:\d+: YAML syntax error/);
    expect(() => parseRunConfig('{"connection": ', { file: 'c.json', absolute: '/c.json' })).toThrow(
      /c\.json: not valid JSON/,
    );
  });

  it('reads the token from the environment or token_file, never the file itself', async () => {
    const config = parseRunConfig(minimal, where);
    await expect(resolveRunToken(config, { AIRT_TOKEN: ' t0k ' })).resolves.toBe('t0k');
    await expect(resolveRunToken(config, {})).rejects.toThrow(
      'No access token: set AIRT_TOKEN or connection.token_file in the config.',
    );
    const dir = await makeTempDir('airt-config-');
    await writeFile(path.join(dir, 'token'), 'from-file\n');
    const withFile = parseRunConfig(
      minimal.replace('workspace: main', 'workspace: main, token_file: token'),
      {
        file: 'c.yaml',
        absolute: path.join(dir, 'c.yaml'),
      },
    );
    await expect(resolveRunToken(withFile, { AIRT_TOKEN: 'env' })).resolves.toBe('from-file');
  });

  it('prints a JSON Schema with a description on every property', () => {
    const schema = runConfigJsonSchema();
    const missing: string[] = [];
    const walk = (node: unknown, at: string): void => {
      if (!node || typeof node !== 'object') return;
      const record = node as Record<string, unknown>;
      const properties = record.properties as Record<string, Record<string, unknown>> | undefined;
      for (const [key, child] of Object.entries(properties ?? {})) {
        if (typeof child.description !== 'string') missing.push(`${at}.${key}`);
        walk(child, `${at}.${key}`);
      }
      for (const key of ['items', 'anyOf', 'oneOf']) {
        const inner = record[key];
        if (Array.isArray(inner)) inner.forEach((item) => walk(item, at));
        else walk(inner, at);
      }
    };
    walk(schema, '$');
    expect(missing).toEqual([]);
  });
});
