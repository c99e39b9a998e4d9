/**
 * The web console's browser script is JavaScript checked by the TypeScript compiler against the DOM
 * library (its own tsconfig, which `npm run build` runs): these cases run that check, so a type
 * error there fails the tests as it fails the build.
 */
import { expect } from 'chai';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const TSCONFIG = fileURLToPath(new URL('../../../../lib/api/console/browser/tsconfig.json', import.meta.url));

/** Type errors of the browser program, with `replace` applied to the script's text first. */
function diagnostics(replace?: (text: string) => string): string[] {
  const parsed = ts.getParsedCommandLineOfConfigFile(TSCONFIG, { noEmit: true }, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (d) => { throw new Error(String(d.messageText)); } });
  if (!parsed) throw new Error(`cannot read ${TSCONFIG}`);
  const host = ts.createCompilerHost(parsed.options);
  const read = host.readFile.bind(host);
  host.readFile = (f) => {
    const text = read(f);
    return text !== undefined && replace && f.endsWith('/console/browser/console.js') ? replace(text) : text;
  };
  const program = ts.createProgram({ rootNames: parsed.fileNames, options: parsed.options, host });
  return ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
}

describe('web console: the browser script', function () {
  this.timeout(60_000);

  it('is checked as JavaScript with the DOM library and has no type errors', () => {
    expect(diagnostics()).to.deep.equal([]);
  });

  it('a type error in it is reported', () => {
    const planted = diagnostics((t) => t.replace("statusEl.textContent = 'connected';", 'statusEl.textContent = 1;'));
    expect(planted).to.have.length(1);
    expect(planted[0]).to.match(/not assignable to type 'string'/);
  });
});
