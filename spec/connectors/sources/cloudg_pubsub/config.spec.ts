/** The cloudg_pubsub source's options, its alias, and what `weir validate` says about them. */
import { expect } from 'chai';
import * as v from 'valibot';
import { CloudgPubsubSourceConfig } from '../../../../connectors/sources/cloudg_pubsub/config.js';
import { subscriptionUrl } from '../../../../connectors/sources/cloudg_pubsub/subscription.js';
import { validateConfigText } from '../../../helpers/validate-config.js';

const base = { type: 'cloudg_pubsub', project: 'p1', subscription: 's1' };

/** Runs `weir validate` on a config with a source `in` of `type` (TOML lines) and a blackhole sink. */
const validate = (source: string, type = 'cloudg_pubsub') => validateConfigText(`[sources.in]\ntype = "${type}"\n${source}\n\n[sinks.out]\ntype = "blackhole"\ninputs = ["in"]\n`);

describe('cloudg_pubsub source options', () => {
  it("Vector's defaults: public endpoint, deadline 600 s, retry 1 s, 10 loops, full at 100, check every 2 s, keepalive 60 s, bytes", () => {
    const c = v.parse(CloudgPubsubSourceConfig, base);
    expect(c).to.deep.include({
      endpoint: 'https://pubsub.googleapis.com',
      ack_deadline_secs: 600,
      retry_delay_secs: 1,
      max_concurrency: 10,
      full_response_size: 100,
      poll_time_seconds: 2,
      keepalive_secs: 60,
      decoding: { codec: 'bytes' },
    });
    expect(subscriptionUrl(c)).to.equal('https://pubsub.googleapis.com/v1/projects/p1/subscriptions/s1');
  });

  it('ack_deadline_secs must be between 10 and 600, as the service allows', () => {
    for (const bad of [9, 601, 30.5]) expect(v.safeParse(CloudgPubsubSourceConfig, { ...base, ack_deadline_secs: bad }).success, String(bad)).to.equal(false);
    for (const ok of [10, 600]) expect(v.parse(CloudgPubsubSourceConfig, { ...base, ack_deadline_secs: ok }).ack_deadline_secs).to.equal(ok);
  });

  it('weir validate names a missing project and subscription', async () => {
    const r = await validate('');
    expect(r.code).to.equal(78);
    for (const key of ['sources.in.project', 'sources.in.subscription']) expect(r.out).to.include(key);
    const ok = await validate('project = "p1"\nsubscription = "s1"');
    expect(ok.code, ok.out).to.equal(0);
  });

  it("Vector's name gcp_pubsub is accepted for the source, with the same options", async () => {
    const ok = await validate('project = "p1"\nsubscription = "s1"\nack_deadline_secs = 30', 'gcp_pubsub');
    expect(ok.code, ok.out).to.equal(0);
    const bad = await validate('project = "p1"\nsubscription = "s1"\nack_deadline_secs = 5', 'gcp_pubsub');
    expect(bad.code).to.equal(78);
    expect(bad.out).to.include('sources.in.ack_deadline_secs');
  });

  it('weir validate locates a bad endpoint, a zero max_concurrency and an unknown option', async () => {
    const r = await validate('project = "p1"\nsubscription = "s1"\nendpoint = "ftp://x"\nmax_concurrency = 0\npoll_secs = 3');
    expect(r.code).to.equal(78);
    for (const key of ['sources.in.endpoint', 'sources.in.max_concurrency', 'poll_secs']) expect(r.out).to.include(key);
  });
});
