import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  forEachArrayElement,
  JsonSyntaxError,
  NotAnArrayError,
} from '../../src/snapshot/json-array-stream.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'airt-jsonarray-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function elements(text: string): Promise<unknown[]> {
  const file = path.join(dir, `f-${Math.random().toString(16).slice(2)}.json`);
  await writeFile(file, text);
  const seen: unknown[] = [];
  const count = await forEachArrayElement(file, (value, index) => {
    expect(index).toBe(seen.length);
    seen.push(value);
  });
  expect(count).toBe(seen.length);
  return seen;
}

describe('forEachArrayElement', () => {
  it('yields the same elements as JSON.parse for tricky content', async () => {
    const data = [
      { a: 'brackets ] [ } { and , commas', b: 'escaped \\" quote \\\\', c: [1, [2, { d: null }]] },
      'string element, with ] inside',
      42,
      -1.5e3,
      true,
      null,
      [],
      {},
      { unicode: 'Ünïcödé 🚀 \u2028', ctrl: '\u0001' },
    ];
    expect(await elements(` \n${JSON.stringify(data, null, 2)}\n `)).toEqual(data);
    expect(await elements(JSON.stringify(data))).toEqual(data);
  });

  it('handles elements that span read chunks', async () => {
    const big = Array.from({ length: 300 }, (_, i) => ({ i, text: 'x"y\\'.repeat(500) }));
    expect(await elements(JSON.stringify(big))).toEqual(big);
  });

  it('accepts an empty array', async () => {
    expect(await elements('[ ]')).toEqual([]);
  });

  it('reports a body that is not an array', async () => {
    await expect(elements('{"items": []}')).rejects.toBeInstanceOf(NotAnArrayError);
  });

  it.each(['[1,]', '[,1]', '[1 2]', '[{"a":1}', '[{"a":1}] x', '', '[{"a":}]', '[1]]'])(
    'rejects %j',
    async (text) => {
      await expect(elements(text)).rejects.toBeInstanceOf(JsonSyntaxError);
    },
  );
});
