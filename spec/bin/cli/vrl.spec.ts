import { expect } from 'chai';
import { PassThrough, Readable } from 'node:stream';
import { REPL_HELP, listFunctions, runVrlCommand } from '../../../bin/cli/vrl.js';
import { runWeir } from '../../helpers/weir-process.js';

/** Runs `weir vrl` on a fake terminal: stdin reports isTTY and yields the typed lines. */
async function onTerminal(opts: Parameters<typeof runVrlCommand>[0], lines: string[]) {
  let out = '';
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  stdout.on('data', (c) => (out += String(c)));
  let err = '';
  stderr.on('data', (c) => (err += String(c)));
  const stdin = Object.assign(Readable.from(lines.map((l) => l + '\n')), { isTTY: true });
  const code = await runVrlCommand(opts, { stdin, stdout, stderr });
  return { code, out, err };
}

/** Output lines without the banner and prompts. */
const answers = (out: string): string[] =>
  out
    .split('\n')
    .slice(1)
    .map((l) => l.replace(/^(\$ )+/, ''))
    .filter((l) => l !== '');

describe('weir vrl REPL', () => {
  it('runs each line against an event that persists across lines', async () => {
    const { code, out } = await onTerminal({}, ['.a = 1', '.b = .a + 1', '.', 'exit', '.c = 3']);
    expect(code).to.equal(0);
    expect(answers(out)).to.deep.equal(['1', '2', '{"a":1,"b":2}']);
  });

  it('prints diagnostics and runtime errors, and rolls the event back after a failed run', async () => {
    const { out } = await onTerminal({}, ['.a = 1', 'upcase(', '.a = 2; abort "stop"', '.a']);
    expect(out).to.include('error[E204]');
    expect(out).to.include('aborted: stop');
    expect(answers(out).at(-1)).to.equal('1');
  });

  it('quits at end of input (Ctrl-D) with code 0', async () => {
    const { code, out } = await onTerminal({}, ['.x = "y"']);
    expect(code).to.equal(0);
    expect(answers(out)).to.deep.equal(['"y"']);
  });

  it('runs a given program once on {} instead of opening the REPL', async () => {
    const { out } = await onTerminal({ program: '.a = 5; .' }, ['.b = 1']);
    expect(out).to.equal('{"result":{"a":5},"object":{"a":5}}\n');
  });
});

describe('weir vrl REPL help', function () {
  this.timeout(120_000);

  it('help, help functions and help <function> answer through the command line, on piped stdin', async () => {
    const r = await runWeir(['vrl'], { input: ['help', 'help functions', 'help upcase', 'help no_such_fn', '.a = 1', 'exit', '.a = 2'].join('\n') + '\n' });
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stderr).to.equal('');
    // help is a command here, not the undefined variable `help` (which would be error E701)
    expect(r.stdout).to.not.include('E701');
    expect(r.stdout).to.include(REPL_HELP);
    expect(r.stdout).to.include('help <function>');
    expect(r.stdout).to.include(listFunctions());
    expect(r.stdout).to.match(/^(\$ )*upcase\(value: string\) :: string\n {4}\S.*\n {4}value: string\n/m);
    expect(r.stdout).to.include('no function named "no_such_fn"');
    // programs still run after the commands, and exit stops before the last line
    expect(answers(r.stdout).filter((l) => l === '1' || l === '2')).to.deep.equal(['1']);
  });

  it('a line that only starts with help is still a program', async () => {
    const { out } = await onTerminal({}, ['help = 3', 'help = 3; help + 1']);
    expect(answers(out)).to.deep.equal(['3', '4']);
  });
});

describe('weir vrl --functions', () => {
  it('lists every function with its signature and fallibility', async () => {
    const { code, out } = await onTerminal({ functions: true }, []);
    expect(code).to.equal(0);
    expect(out).to.equal(listFunctions());
    expect(out).to.match(/^parse_json\(value: string, max_depth\?: integer, lossy\?: boolean\) :: .* \(fallible\)$/m);
    expect(out).to.match(/^upcase\(value: string\) :: string$/m);
  });
});
