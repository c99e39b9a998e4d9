/** Records written straight from a line's bytes (connectors/threads/verbatim.ts): the encoder's own bytes, or none. */
import { expect } from 'chai';
import * as v from 'valibot';
import { VirtualTimeScheduler } from 'rxjs';
import { recordTemplate, writeVerbatim } from '../../../connectors/threads/verbatim.js';
import { createHttpEncoder } from '../../../connectors/sinks/http/encoder.js';
import { decoderFor } from '../../../connectors/sources/socket/decoder.js';
import { SocketSourceConfig } from '../../../connectors/sources/socket/config.js';
import { Utf8Writer, isVerbatimAscii } from '../../../lib/codecs/json-bytes.js';
import { componentContext } from '../../../lib/component-context.js';
import type { Event } from '../../../lib/event.js';
import { eventSize } from '../../../lib/event.js';
import { httpConfig } from '../sinks/http/harness.js';

/** A socket source's decoder at a fixed receive time, stamped with a peer. */
function decoder(options: Record<string, unknown> = {}) {
  const scheduler = new VirtualTimeScheduler();
  scheduler.frame = 1_764_331_200_123; // an instant with milliseconds, as a receive time has
  const config = v.parse(SocketSourceConfig, { type: 'socket', mode: 'tcp', address: '127.0.0.1:9000', ...options });
  const ctx = componentContext({ id: 'in', kind: 'source', type: 'socket', scheduler });
  const d = decoderFor(config, ctx, true)();
  d.stamp.host = '10.1.2.3';
  d.stamp.port = 51234;
  return d;
}

const encodings: Record<string, Record<string, unknown>> = {
  json: { encoding: { codec: 'json' } },
  ndjson: { encoding: { codec: 'ndjson' } },
  text: { encoding: { codec: 'text' } },
  'ndjson, unix timestamps, no host': { encoding: { codec: 'ndjson', timestamp_format: 'unix', except_fields: ['host'] } },
  'json, pretty': { encoding: { codec: 'json', json: { pretty: true } } },
};

describe('connectors/threads/verbatim: records from the line bytes', () => {
  for (const [name, extra] of Object.entries(encodings)) {
    it(`${name}: a plain line's record and size are what decoding and encoding it give`, () => {
      const encoder = createHttpEncoder(httpConfig('http://127.0.0.1:1/', extra));
      const writeText = (e: Event, w: Utf8Writer) => encoder.writeText(e, w);
      const lines = ['GET /index.html HTTP/1.1 200 512', '', "a line with <tags> & 'single' quotes, {braces} [] ~ DEL\x7f", 'x'.repeat(5000)];
      const input = Buffer.from(lines.join('\n') + '\n');
      const d = decoder({ port_key: 'port' });
      const got = new Utf8Writer(64);
      const want = new Utf8Writer(64);
      let frames = 0;
      d.pushFrames(input, (b, start, end) => {
        frames++;
        expect(isVerbatimAscii(b, undefined, start, end), `line ${frames}`).to.equal(true);
        const t = recordTemplate(d, writeText)!;
        expect(t, 'a template').to.not.equal(undefined);
        const from = got.pos;
        writeVerbatim(got, t, b, start, end);
        const events: Event[] = [];
        const size = d.decode(b, start, end, events);
        writeText(events[0]!, want);
        expect(got.buf.subarray(from, got.pos).toString()).to.equal(want.buf.subarray(from, want.pos).toString());
        expect(t.baseSize + end - start).to.equal(size).and.to.equal(eventSize(events[0]!));
      });
      expect(frames).to.equal(lines.length);
      expect(got.buf.subarray(0, got.pos).equals(want.buf.subarray(0, want.pos))).to.equal(true);
    });
  }

  it('there is no template when the encoder does not write the message once as it is', () => {
    const d = decoder();
    d.pushFrames(Buffer.from('x\n'), () => {});
    for (const encoding of [{ codec: 'json', except_fields: ['message'] }, { codec: 'ndjson', only_fields: ['host'] }]) {
      const encoder = createHttpEncoder(httpConfig('http://127.0.0.1:1/', { encoding }));
      expect(recordTemplate(d, (e, w) => encoder.writeText(e, w))).to.equal(undefined);
    }
  });

  it('takes only bytes that are their own JSON string body: printable ASCII without quotes or backslashes', () => {
    const buf = Buffer.alloc(64);
    const words = new Uint32Array(buf.buffer, buf.byteOffset, 16);
    const check = (s: string | Buffer) => {
      const bytes = Buffer.from(s as string);
      const results: boolean[] = [];
      // every alignment, through the word scan and byte by byte
      for (let at = 0; at < 8; at++) {
        buf.fill(0x61);
        bytes.copy(buf, at);
        results.push(isVerbatimAscii(buf, words, at, at + bytes.length), isVerbatimAscii(buf, undefined, at, at + bytes.length));
      }
      expect(new Set(results).size, JSON.stringify(s)).to.equal(1);
      return results[0];
    };
    expect(check('plain text, 12345 ~!@#$%^&*()_+-=[]{}|;:<>?/.`\x7f')).to.equal(true);
    for (const bad of ['quote " inside', 'back\\slash', 'tab\there', 'nul\0', 'bell\x07', 'line\nfeed', 'café', 'ok 🚀', Buffer.from([0x61, 0xff, 0x61]), Buffer.from([0xed, 0xa0, 0x80])]) {
      expect(check(bad), JSON.stringify(String(bad))).to.equal(false);
    }
  });
});
