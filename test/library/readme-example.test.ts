/**
 * The README's library example is examples/library.ts, the program the pack test installs and runs:
 * the code block must equal the file (below its header comment), so the two cannot drift apart.
 */
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';

const read = (relative: string): Promise<string> => readFile(new URL(relative, import.meta.url), 'utf8');

describe('README library example', () => {
  it('is examples/library.ts', async () => {
    const readme = await read('../../README.md');
    const example = await read('../../examples/library.ts');
    const section = readme.slice(readme.indexOf('## Library'));
    const block = /```ts\n([\s\S]*?)```/u.exec(section)?.[1];
    expect(block).toBe(example.slice(example.indexOf('*/\n') + 3).trimStart());
  });
});
