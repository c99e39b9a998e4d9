import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { documentFunction, functionReference, functionsMarkdown } from '../../remap/reference.js';
import { stdlib } from '../../remap/stdlib/index.js';
import * as K from '../../remap/kind.js';

describe('remap function reference', () => {
  it('describes every built-in function in one line from its declaration, each name once', () => {
    const names = new Set(stdlib.map((f) => f.name));
    expect(names.size, 'a function name is declared twice').to.equal(stdlib.length);
    expect(stdlib.filter((f) => !f.description || f.description.includes('\n')).map((f) => f.name)).to.deep.equal([]);
    const reference = functionReference();
    expect(reference).to.have.length(names.size);
    expect(reference.find((d) => d.name === 'parse_json')!.description).to.equal(stdlib.find((f) => f.name === 'parse_json')!.description);
  });

  it('documents parameters, fallibility, result kind, defaults and examples from the declaration', () => {
    const d = documentFunction({
      name: 'demo',
      description: 'Whether the demo holds.',
      params: [
        { name: 'value', kind: K.BYTES | K.INTEGER, required: true },
        { name: 'limit', kind: K.INTEGER, default: '10' },
        { name: 'at', kind: K.ALL, query: true },
      ],
      fallible: (args) => args.length > 1,
      returns: K.K_BOOLEAN,
      call: () => true,
      examples: [{ source: 'demo("a")', result: 'true' }],
    });
    expect(d.description).to.equal('Whether the demo holds.');
    expect(d.params).to.deep.equal([
      { name: 'value', kinds: 'string or integer', required: true },
      { name: 'limit', kinds: 'integer', required: false, default: '10' },
      { name: 'at', kinds: 'path', required: false },
    ]);
    expect(d.fallible).to.equal('depends on arguments');
    expect(d.returns).to.equal('boolean');
    expect(d.examples).to.have.length(1);
    const parseJson = functionReference().find((f) => f.name === 'parse_json')!;
    expect(parseJson.fallible).to.equal('yes');
    expect(parseJson.params.map((p) => p.name)).to.deep.equal(['value', 'max_depth', 'lossy']);
  });

  it('docs/remap-functions.md is the generated text (run scripts/gen-remap-docs.ts after changes)', () => {
    const committed = readFileSync(new URL('../../docs/remap-functions.md', import.meta.url), 'utf8');
    expect(committed === functionsMarkdown(), 'docs/remap-functions.md is out of date').to.equal(true);
  });
});
