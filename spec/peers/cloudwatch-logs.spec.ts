/**
 * The strict CloudWatch Logs server, checked with the official SDK client: what the SDK sends is
 * accepted and stored, and what the service refuses (a wrong secret, a missing stream, events out
 * of order, more than 24 h in one call, empty messages) is refused with the service's error shapes.
 */
import {
  CloudWatchLogsClient,
  CreateLogGroupCommand,
  CreateLogStreamCommand,
  DescribeLogGroupsCommand,
  DescribeLogStreamsCommand,
  PutLogEventsCommand,
} from '@aws-sdk/client-cloudwatch-logs';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { expect } from 'chai';
import { type CloudwatchLogsPeer, startCloudwatchLogs } from './cloudwatch-logs.js';

const NOW = 1_700_000_000_000;

describe('peers: strict CloudWatch Logs server (official SDK client)', () => {
  let logs: CloudwatchLogsPeer;
  before(async () => {
    logs = await startCloudwatchLogs({ now: () => NOW });
  });
  after(() => logs.close());

  const client = (secretAccessKey = 'weir-test-secret', region = 'us-east-1') =>
    new CloudWatchLogsClient({
      endpoint: logs.url,
      region,
      maxAttempts: 1,
      credentials: { accessKeyId: 'AKIDWEIRTEST', secretAccessKey },
      requestHandler: new NodeHttpHandler(),
    });
  const errorOf = (p: Promise<unknown>) =>
    p.then(
      () => undefined,
      (err: { name: string; $metadata?: { httpStatusCode?: number } }) => ({ name: err.name, status: err.$metadata?.httpStatusCode }),
    );

  it('accepts what the SDK sends: groups, streams, describe, and PutLogEvents stored in order', async () => {
    const c = client();
    await c.send(new CreateLogGroupCommand({ logGroupName: 'app' }));
    await c.send(new CreateLogStreamCommand({ logGroupName: 'app', logStreamName: 'web-1' }));
    const out = await c.send(
      new PutLogEventsCommand({
        logGroupName: 'app',
        logStreamName: 'web-1',
        logEvents: [
          { timestamp: NOW - 10, message: 'one' },
          { timestamp: NOW, message: 'two' },
        ],
      }),
    );
    expect(out.nextSequenceToken).to.be.a('string');
    expect(out.rejectedLogEventsInfo).to.equal(undefined);
    expect(logs.events('app', 'web-1')).to.deep.equal([
      { timestamp: NOW - 10, message: 'one' },
      { timestamp: NOW, message: 'two' },
    ]);
    const streams = await c.send(new DescribeLogStreamsCommand({ logGroupName: 'app', logStreamNamePrefix: 'web', limit: 1 }));
    expect(streams.logStreams?.map((s) => s.logStreamName)).to.deep.equal(['web-1']);
    const groups = await c.send(new DescribeLogGroupsCommand({ logGroupNamePrefix: 'ap', limit: 1 }));
    expect(groups.logGroups?.map((g) => g.logGroupName)).to.deep.equal(['app']);
    const sig = String(logs.requests.at(-1)!.headers.authorization);
    expect(sig).to.match(/^AWS4-HMAC-SHA256 Credential=AKIDWEIRTEST\/\d{8}\/us-east-1\/logs\/aws4_request, SignedHeaders=/);
    c.destroy();
  });

  it('refuses with the service error shapes: signature, missing group or stream, existing group, order, span, size, empty message', async () => {
    const c = client();
    const put = (logEvents: { timestamp: number; message: string }[], logStreamName = 'web-1', logGroupName = 'app') =>
      errorOf(c.send(new PutLogEventsCommand({ logGroupName, logStreamName, logEvents })));
    expect(await errorOf(client('wrong-secret').send(new DescribeLogGroupsCommand({})))).to.deep.equal({ name: 'InvalidSignatureException', status: 400 });
    expect(await errorOf(client(undefined, 'eu-west-1').send(new DescribeLogGroupsCommand({})))).to.deep.equal({ name: 'InvalidSignatureException', status: 400 });
    expect(await put([{ timestamp: NOW, message: 'x' }], 'nope')).to.deep.equal({ name: 'ResourceNotFoundException', status: 400 });
    expect(await put([{ timestamp: NOW, message: 'x' }], 'web-1', 'nogroup')).to.deep.equal({ name: 'ResourceNotFoundException', status: 400 });
    expect(await errorOf(c.send(new CreateLogGroupCommand({ logGroupName: 'app' })))).to.deep.equal({ name: 'ResourceAlreadyExistsException', status: 400 });
    expect(await put([{ timestamp: NOW, message: 'b' }, { timestamp: NOW - 1, message: 'a' }])).to.deep.equal({ name: 'InvalidParameterException', status: 400 });
    const stored = logs.events('app', 'web-1').length;
    const unordered = await c.send(new PutLogEventsCommand({ logGroupName: 'app', logStreamName: 'web-1', logEvents: [{ timestamp: NOW, message: 'b' }, { timestamp: NOW, message: 'c' }, { timestamp: NOW - 1, message: 'a' }] })).then(
      () => undefined,
      (err: Error) => err.message,
    );
    // the whole request is refused, with the service's own words, and nothing of it is stored
    expect(unordered).to.equal('Log events in a single PutLogEvents request must be in chronological order.');
    expect(logs.events('app', 'web-1').length).to.equal(stored);
    expect(await put([{ timestamp: NOW - 86_400_001, message: 'a' }, { timestamp: NOW, message: 'b' }])).to.deep.equal({ name: 'InvalidParameterException', status: 400 });
    expect(await put([{ timestamp: NOW, message: '' }])).to.deep.equal({ name: 'InvalidParameterException', status: 400 });
    const big = 'x'.repeat(100_000);
    expect(await put(Array.from({ length: 11 }, () => ({ timestamp: NOW, message: big })))).to.deep.equal({ name: 'InvalidParameterException', status: 400 });
    expect(await put(Array.from({ length: 10_001 }, () => ({ timestamp: NOW, message: 'a' })))).to.deep.equal({ name: 'InvalidParameterException', status: 400 });
    c.destroy();
  });

  it('exactly 1,048,576 bytes counting 26 per event is accepted; events too old or too new are refused one by one', async () => {
    const c = client();
    // 4 events of (262,118 + 26) bytes = 1,048,576
    const message = 'y'.repeat(262_144 - 26);
    await c.send(new PutLogEventsCommand({ logGroupName: 'app', logStreamName: 'web-1', logEvents: Array.from({ length: 4 }, () => ({ timestamp: NOW, message })) }));
    const put = (logEvents: { timestamp: number; message: string }[]) => c.send(new PutLogEventsCommand({ logGroupName: 'app', logStreamName: 'web-1', logEvents }));
    const old = NOW - 15 * 86_400_000;
    expect((await put([{ timestamp: old, message: 'old' }, { timestamp: old + 1, message: 'old' }])).rejectedLogEventsInfo).to.deep.equal({ tooOldLogEventEndIndex: 2 });
    const out = await put([{ timestamp: NOW, message: 'ok' }, { timestamp: NOW + 3 * 3_600_000, message: 'future' }]);
    expect(out.rejectedLogEventsInfo).to.deep.equal({ tooNewLogEventStartIndex: 1 });
    expect(logs.refusedEvents).to.equal(3);
    expect(logs.events('app', 'web-1').at(-1)).to.deep.equal({ timestamp: NOW, message: 'ok' });
    c.destroy();
  });
});
