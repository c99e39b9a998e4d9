/**
 * Hostile remap inputs through the compiled CLI and a running daemon (docs/limits.md): each case
 * below froze the process (for seconds, hours, or until SIGKILL), crashed it, or exhausted its
 * memory before. A case passes when it finishes at all, with the right answer; the only clock is
 * a generous limit after which the child is killed and the case fails.
 */
import { expect } from 'chai';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { type Socket, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../helpers/free-port.js';
import { until } from '../helpers/wait.js';
import { type WeirProcess, startWeir } from '../helpers/weir-process.js';

const tmp = mkdtempSync(join(tmpdir(), 'weir-remap-limits-'));
const LIMIT_MS = 10_000;

/** Runs weir to its end, or kills it after LIMIT_MS and says so. */
async function finish(p: WeirProcess, what: string): Promise<{ code: number | null }> {
  let timer: NodeJS.Timeout | undefined;
  const killed = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      p.child.kill('SIGKILL');
      reject(new Error(`${what} did not finish within ${LIMIT_MS} ms`));
    }, LIMIT_MS);
  });
  try {
    return await Promise.race([p.exited, killed]);
  } finally {
    clearTimeout(timer);
  }
}

/** `weir vrl <program>` on events, one after the other: the program's result for each. */
async function vrlEach(program: string, events: object[]): Promise<unknown[]> {
  const p = startWeir(['vrl', program], { input: events.map((e) => JSON.stringify(e) + '\n').join('') });
  const { code } = await finish(p, `weir vrl '${program}'`);
  expect(code, p.stderr()).to.equal(0);
  return p.stdout().trim().split('\n').map((l) => (JSON.parse(l) as { result: unknown }).result);
}

/** `weir vrl <program>` on one event: the program's result. */
async function vrl(program: string, event: object): Promise<unknown> {
  return (await vrlEach(program, [event]))[0];
}

describe('remap limits through weir vrl and the daemon', function () {
  this.timeout(120_000);

  describe('regexes finish with the right answer', () => {
    // 56 spaces took seconds per call, 200 longer than anyone waited
    const spaces = [56, 200].map((n) => ({ s: ' '.repeat(n) + 'x' }));

    it('parse_common_log on 56 and 200 spaces and an x', async () => {
      expect(await vrlEach('parse_common_log(string!(.s)) ?? "no match"', spaces)).to.deep.equal(['no match', 'no match']);
    });

    it('parse_apache_log on 56 and 200 spaces and an x', async () => {
      expect(await vrlEach('parse_apache_log(string!(.s), format: "common") ?? "no match"', spaces)).to.deep.equal(['no match', 'no match']);
    });

    it('parse_nginx_log(format: "error") on a 20 kB line', async () => {
      const s = ' '.repeat(20_000) + 'x';
      expect(await vrl('parse_nginx_log(string!(.s), format: "error") ?? "no match"', { s })).to.equal('no match');
    });

    it("match(s, r'^(a+)+$') on 40 a's and a !", async () => {
      expect(await vrl("match(string!(.s), r'^(a+)+$')", { s: 'a'.repeat(40) + '!' })).to.equal(false);
    });

    it("parse_regex(s, r'^(\\w+\\s?)*$') on 65 characters", async () => {
      const s = 'word '.repeat(12) + 'tail!';
      expect(await vrl("parse_regex(string!(.s), r'^(\\w+\\s?)*$') ?? \"no match\"", { s })).to.equal('no match');
    });

    it("replace(s, r'(x+x+)+y', \"\") on 28 x's", async () => {
      expect(await vrl("replace(string!(.s), r'(x+x+)+y', \"\")", { s: 'x'.repeat(28) })).to.equal('x'.repeat(28));
    });

    it("replace(s, r'\\s+$', \"\") on 200,000 spaces and an x", async () => {
      const s = 'a' + ' '.repeat(200_000) + 'x';
      expect(await vrl("length(replace(string!(.s), r'\\s+$', \"\"))", { s })).to.equal(s.length);
    });

    it('look-around is a compile error (E101), as in Rust regex', async () => {
      const p = startWeir(['vrl', "match(string!(.s), r'a(?=b)')"], { input: '{"s":"ab"}\n' });
      const { code } = await finish(p, 'weir vrl');
      expect(code).to.equal(2);
      expect(p.stderr()).to.include('error[E101]: invalid regular expression').and.include('look-around, including look-ahead and look-behind, is not supported');
    });
  });

  describe('types, JSON depth and config depth', () => {
    it('27 lines of a = append(a, a) validate at once', async () => {
      const cfg = join(tmp, 'append.yaml');
      const program = 'a = [1]\n' + 'a = append(a, a)\n'.repeat(27) + '.n = length(a)\n';
      writeFileSync(
        cfg,
        `sources:\n  in:\n    type: stdin\ntransforms:\n  grow:\n    type: remap\n    inputs: [in]\n    source: |\n${program.replace(/^(?=.)/gm, '      ')}sinks:\n  out:\n    type: blackhole\n    inputs: [grow]\n`,
      );
      const p = startWeir(['validate', '--config', cfg]);
      const { code } = await finish(p, 'weir validate');
      expect(code, p.stdout() + p.stderr()).to.equal(0);
    });

    it('type_def of a failed parse_json result', async () => {
      expect(await vrl('x, err = parse_json("abc"); type_def(x)', {})).to.deep.equal({ json: true });
    });

    it('parse_json 200 levels deep is an error, not a truncated value', async () => {
      const s = '['.repeat(200) + ']'.repeat(200);
      expect(await vrl('x, err = parse_json(string!(.s)); err', { s })).to.match(/unable to parse json: recursion limit exceeded at line 1 column 128$/);
    });

    it('a YAML config nested 10,000 levels: exit 78, located, saying what is wrong', async () => {
      const cfg = join(tmp, 'deep.yaml');
      writeFileSync(cfg, `sources:\n  in:\n    type: stdin\n    x: ${'['.repeat(10_000)}${']'.repeat(10_000)}\n`);
      const p = startWeir(['validate', '--config', cfg]);
      const { code } = await finish(p, 'weir validate');
      expect(code).to.equal(78);
      expect(p.stdout() + p.stderr()).to.match(/deep\.yaml:4:\d+: invalid YAML: nested deeper than 256 levels/);
    });
  });

  describe('a running pipeline', () => {
    let p: WeirProcess | undefined;
    afterEach(async () => {
      if (p && p.child.exitCode === null && p.child.signalCode === null) {
        p.child.kill('SIGKILL');
        await p.exited;
      }
    });

    it('after a line of 200 spaces and an x, the next 50 lines are delivered and SIGTERM is honoured', async () => {
      const port = await freePort();
      const out = join(tmp, 'parsed.json');
      const cfg = join(tmp, 'pipeline.toml');
      writeFileSync(
        cfg,
        `[sources.in]
type = "socket"
mode = "tcp"
address = "127.0.0.1:${port}"
[transforms.parse]
type = "remap"
inputs = ["in"]
source = '.parsed = parse_common_log(.message) ?? null'
[sinks.out]
type = "file"
inputs = ["parse"]
path = "${out}"
encoding.codec = "json"
`,
      );
      p = startWeir(['--config', cfg]);
      await until(() => p!.stderr().includes('weir started'), 20_000, 'the daemon to start');
      // the socket source listens shortly after the start line: connect once it does
      let socket: Socket | undefined;
      for (const deadline = Date.now() + 20_000; !socket; ) {
        socket = await new Promise<Socket | undefined>((resolve) => {
          const s = connect(port, '127.0.0.1', () => resolve(s));
          s.once('error', () => resolve(undefined));
        });
        if (!socket) {
          if (Date.now() > deadline) throw new Error(`the socket source never listened; stderr: ${p.stderr()}`);
          await new Promise((r) => setTimeout(r, 50));
        }
      }
      const good = (i: number) => `127.0.0.${i} - frank [10/Oct/2000:13:55:36 -0700] "GET /item/${i} HTTP/1.0" 200 ${1000 + i}`;
      socket.write(' '.repeat(200) + 'x\n');
      for (let i = 1; i <= 50; i++) socket.write(good(i) + '\n');
      const lines = () => (existsSync(out) ? readFileSync(out, 'utf8').split('\n').filter(Boolean) : []);
      await until(() => lines().length === 51, 30_000, `51 events in the file; stderr: ${p.stderr()}`);
      const events = lines().map((l) => JSON.parse(l) as { message: string; parsed: { host?: string; size?: number } | null });
      expect(events[0]!.parsed).to.equal(null);
      expect(events.slice(1).map((e) => e.parsed?.host)).to.deep.equal(Array.from({ length: 50 }, (_, i) => `127.0.0.${i + 1}`));
      socket.destroy();
      p.child.kill('SIGTERM');
      const { code } = await finish(p, 'the daemon after SIGTERM');
      expect(code).to.equal(0);
    });
  });
});
