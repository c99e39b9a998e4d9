import { expect } from 'chai';
import fc from 'fast-check';
import { parse as parseToml } from 'smol-toml';
import { parse as parseYaml } from 'yaml';
import { describeSyntaxError } from '../../../lib/config/syntax-error.js';
import { formatProblem } from '../../../lib/errors.js';

/** What `parse` throws for `text`. */
function thrown(parse: (text: string) => unknown, text: string): unknown {
  try {
    parse(text);
  } catch (err) {
    return err;
  }
  throw new Error(`parsed without error: ${text}`);
}

/** What JSON.parse throws for `text`, or undefined when it parses. */
function jsonError(text: string): unknown {
  try {
    JSON.parse(text);
    return undefined;
  } catch (err) {
    return err;
  }
}

function lineColumnOf(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset).split('\n');
  return { line: before.length, column: before[before.length - 1]!.length + 1 };
}

describe('config syntax errors: line and column', () => {
  it('JSON: where V8 names an offset, the scan finds the same one', () => {
    const mutated = fc
      .tuple(fc.json({ maxDepth: 3 }), fc.nat(), fc.constantFrom('', ',', '{', '}', '[', ']', '"', ':', 'x', '\n', '-', '0', 'tru'))
      .map(([json, at, insert]) => {
        const text = JSON.stringify(JSON.parse(json), null, 2);
        const i = at % (text.length + 1);
        // an empty insert deletes the character at i instead
        return insert === '' ? text.slice(0, i) + text.slice(i + 1) : text.slice(0, i) + insert + text.slice(i);
      });
    let compared = 0;
    fc.assert(
      fc.property(mutated, (text) => {
        const err = jsonError(text);
        if (err === undefined) return;
        const fault = describeSyntaxError(err, 'json', text);
        expect(fault.message).to.match(/^invalid JSON: \S/).and.not.match(/position|is not valid JSON/);
        expect(fault.line, text).to.be.a('number');
        const at = /at position (\d+)/.exec((err as Error).message);
        if (!at) return;
        compared++;
        expect({ line: fault.line, column: fault.column }, text).to.deep.equal(lineColumnOf(text, Number(at[1])));
      }),
      { numRuns: 2000 },
    );
    expect(compared).to.be.greaterThan(200);
  });

  it('JSON: errors V8 reports by quoting the text still get a position', () => {
    const text = '{\n  "sources": {\n    "gen": { "type": }\n  }\n}';
    const fault = describeSyntaxError(jsonError(text), 'json', text);
    expect(fault).to.deep.equal({ message: "invalid JSON: Unexpected token '}'", line: 3, column: 22 });
  });

  it('JSON: a truncated file points after its last character', () => {
    const text = '{\n  "a": [1, 2';
    expect(describeSyntaxError(jsonError(text), 'json', text)).to.include({ line: 2, column: 13 });
  });

  it('TOML: the parser\'s position, its message without the excerpt', () => {
    const text = 'a = 1\n[sinks.out]\nencoding = { codec = "json" x = 1 }\n';
    expect(describeSyntaxError(thrown(parseToml, text), 'toml', text)).to.deep.equal({
      message: 'invalid TOML: expected comma or end of structure',
      line: 3,
      column: 29,
    });
  });

  it('YAML: the parser\'s position, its message without "at line …"', () => {
    const text = 'sources:\n  gen:\n    type: demo_logs\n   format: json\n';
    const fault = describeSyntaxError(thrown(parseYaml, text), 'yaml', text);
    expect(fault).to.deep.equal({ message: 'invalid YAML: All mapping items must start at the same column', line: 4, column: 1 });
  });

  it('a problem line puts the position after the file, or spells it out without one', () => {
    const p = { code: 'WEIR_ERR_CONFIG_SYNTAX', message: 'invalid TOML: x', line: 3, column: 7 } as const;
    expect(formatProblem({ ...p, file: 'p.toml' })).to.equal('p.toml:3:7: invalid TOML: x [WEIR_ERR_CONFIG_SYNTAX]');
    expect(formatProblem(p)).to.equal('line 3, column 7: invalid TOML: x [WEIR_ERR_CONFIG_SYNTAX]');
    expect(formatProblem({ ...p, file: 'p.toml', line: undefined, column: undefined })).to.equal('p.toml: invalid TOML: x [WEIR_ERR_CONFIG_SYNTAX]');
  });
});
