import { expect } from 'chai';
import { editDistance, suggest } from '../../../lib/config/suggest.js';

const BATCH = ['max_events', 'max_bytes', 'timeout_secs'];

describe('config: did you mean', () => {
  it('edit distance counts insertions, deletions, substitutions and adjacent swaps as one edit each', () => {
    expect(editDistance('max_events', 'max_events')).to.equal(0);
    expect(editDistance('max_event', 'max_events')).to.equal(1);
    expect(editDistance('max_evxnts', 'max_events')).to.equal(1);
    expect(editDistance('max_evnets', 'max_events')).to.equal(1);
    expect(editDistance('', 'abc')).to.equal(3);
    expect(editDistance('kitten', 'sitting')).to.equal(3);
    expect(editDistance('ca', 'abc')).to.equal(3); // no edits on a swapped pair (optimal string alignment)
  });

  it('suggests the one close name', () => {
    expect(suggest('max_event', BATCH)).to.equal('max_events');
    expect(suggest('max_evnets', BATCH)).to.equal('max_events');
    expect(suggest('timeout_sec', BATCH)).to.equal('timeout_secs');
    expect(suggest('data_dirr', ['data_dir', 'timezone'])).to.equal('data_dir');
  });

  it('ignores case and - versus _', () => {
    expect(suggest('Max-Events', BATCH)).to.equal('max_events');
  });

  it('suggests the only name a short prefix starts', () => {
    expect(suggest('time', BATCH)).to.equal('timeout_secs');
    expect(suggest('max', BATCH)).to.equal(undefined); // two names start with it
    expect(suggest('ti', BATCH)).to.equal(undefined); // too short to mean anything
  });

  it('stays silent when nothing is close or two names are equally close', () => {
    expect(suggest('bogus', ['type', 'inputs', 'target'])).to.equal(undefined);
    expect(suggest('max_byts', BATCH)).to.equal('max_bytes');
    expect(suggest('max_xvents', ['max_events', 'max_evxnts2'])).to.equal('max_events');
    expect(suggest('abcd_1', ['abcd_2', 'abcd_3'])).to.equal(undefined);
  });

  it('allows one edit in names under 6 characters, two in longer ones', () => {
    expect(suggest('tpye', ['type'])).to.equal('type');
    expect(suggest('tyx', ['type'])).to.equal(undefined);
    expect(suggest('hosts', ['hxsts'])).to.equal('hxsts');
    expect(suggest('hosts', ['hxstx'])).to.equal(undefined);
    expect(suggest('mx_evnt', ['max_events'])).to.equal(undefined); // three edits
    expect(suggest('mx_evnts', ['max_events'])).to.equal('max_events');
  });
});
