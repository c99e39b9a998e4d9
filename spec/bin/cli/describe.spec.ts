import { expect } from 'chai';
import { Writable } from 'node:stream';
import { describeCommand } from '../../../bin/cli/describe.js';
import { runWeir } from '../../helpers/weir-process.js';

function capture(type: string, format = 'text'): { code: number; out: string; err: string } {
  let out = '';
  let err = '';
  const w = (f: (s: string) => void) =>
    new Writable({
      write(chunk, _enc, cb) {
        f(String(chunk));
        cb();
      },
    });
  const code = describeCommand(type, format, w((s) => (out += s)), w((s) => (err += s)));
  return { code, out, err };
}

describe('weir list <type>', () => {
  it('socket: the source and the sink, each with its options from the schema and an example', () => {
    const r = capture('socket');
    expect(r.code).to.equal(0);
    expect(r.out).to.match(/^socket \(source\): /);
    expect(r.out).to.include('\nsocket (sink): ');
    expect(r.out).to.include('  mode  (string; required; allowed: "tcp", "udp", "unix_stream", "unix_datagram")');
    expect(r.out).to.include('  max_length  (integer; default 102400; allowed: ≥ 1)');
    expect(r.out).to.include('Example:\n\n  [sources.app]\n  type = "socket"');
  });

  it("a Vector type name finds weir's component; json lists the option rows", () => {
    const r = capture('loki', 'json');
    expect(r.code).to.equal(0);
    const [def] = JSON.parse(r.out) as { type: string; kind: string; options: { path: string; required: boolean }[] }[];
    expect(def).to.include({ type: 'labelstore', kind: 'sink' });
    expect(def!.options.find((o) => o.path === 'endpoint')).to.include({ required: true });
  });

  it('an unknown type exits 1 with a suggestion', () => {
    const r = capture('sockte');
    expect(r.code).to.equal(1);
    expect(r.out).to.equal('');
    expect(r.err).to.include('unknown component type "sockte"; did you mean "socket"?');
  });

  it('the command line: `weir list tsdb_metrics` prints the reference; `weir list` alone still lists every type', async function () {
    this.timeout(60_000);
    const one = await runWeir(['list', 'tsdb_metrics']);
    expect(one.code, one.stderr).to.equal(0);
    expect(one.stdout).to.match(/^tsdb_metrics \(sink\): .*Vector's name `influxdb_metrics` works too\./);
    expect(one.stdout).to.include('  endpoint  (string; required; allowed: a URL)');
    const all = await runWeir(['list']);
    expect(all.code).to.equal(0);
    expect(all.stdout).to.include('Sources:\n').and.include('- tsdb_metrics ');
    expect(all.stdout).not.to.include('Options:');
  });
});
