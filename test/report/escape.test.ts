import { marked, type Token, type Tokens } from 'marked';
import { describe, expect, it } from 'vitest';
import { escapeHtml, escapeMarkdownText, markdownCode } from '../../src/report/escape.js';
import { HOSTILE } from './fixture-model.js';

const hostile = Object.values(HOSTILE);

function tokens(markdown: string): Token[] {
  return marked.lexer(markdown, { gfm: true });
}

function walk(list: readonly Token[], visit: (token: Token) => void): void {
  for (const token of list) {
    visit(token);
    const nested = token as Token & { tokens?: Token[]; items?: Token[] };
    if (nested.tokens) walk(nested.tokens, visit);
    if (nested.items) walk(nested.items, visit);
    if (token.type === 'table') {
      const table = token as Tokens.Table;
      for (const cell of [...table.header, ...table.rows.flat()]) walk(cell.tokens, visit);
    }
  }
}

describe('escapeHtml', () => {
  it('escapes every character that matters in text and quoted attributes', () => {
    expect(escapeHtml(`<a href="x" onclick='y'>\`=&`)).toBe(
      '&lt;a href&#x3D;&quot;x&quot; onclick&#x3D;&#x27;y&#x27;&gt;&#x60;&#x3D;&amp;',
    );
  });
});

describe('escapeMarkdownText', () => {
  it('keeps a table cell one cell and produces no link, image, HTML or code from the data', () => {
    for (const value of hostile) {
      const markdown = `| a | b |\n| --- | --- |\n| ${escapeMarkdownText(value)} | end |\n`;
      const [table] = tokens(markdown) as Tokens.Table[];
      expect(table?.type).toBe('table');
      expect(table?.rows).toHaveLength(1);
      expect(table?.rows[0]).toHaveLength(2);
      expect(table?.rows[0]?.[1]?.text).toBe('end');
      const kinds = new Set<string>();
      walk(table?.rows[0]?.[0]?.tokens ?? [], (token) => kinds.add(token.type));
      expect([...kinds].filter((kind) => !['text', 'escape'].includes(kind))).toEqual([]);
    }
  });

  it('renders back to the original characters (newlines shown as ↵)', () => {
    const html = marked.parseInline(escapeMarkdownText('a*b*_c_ [x](y) <i> & \\ | `z` www.e.com'), {
      gfm: true,
    }) as string;
    expect(html).toBe('a*b*_c_ [x](y) &lt;i&gt; &amp; \\ | `z` www.e.com');
    expect(escapeMarkdownText('one\ntwo')).toBe('one ↵ two');
  });

  it('does not start a list, heading or quote when placed at the start of a line', () => {
    for (const value of ['- item', '1. item', '# heading', '> quote', '+ plus', '=== setext']) {
      const [token] = tokens(`${escapeMarkdownText(value)}\n`);
      expect(token?.type).toBe('paragraph');
    }
  });
});

describe('markdownCode', () => {
  it('fences longer than any backtick run and stays one code span in a table cell', () => {
    const code = markdownCode('a ``b`` c | d\ne');
    expect(code).toBe('```a ``b`` c ¦ d e```');
    const [table] = tokens(`| x | y |\n| --- | --- |\n| ${code} | end |\n`) as Tokens.Table[];
    expect(table?.rows[0]).toHaveLength(2);
    expect(table?.rows[0]?.[0]?.tokens[0]?.type).toBe('codespan');
  });

  it('pads a span that starts or ends with a backtick', () => {
    expect(markdownCode('`x`')).toBe('`` `x` ``');
    expect(markdownCode('')).toBe('');
  });
});
