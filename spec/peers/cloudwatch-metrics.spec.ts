/**
 * The strict CloudWatch metrics server, checked with the official SDK client: the pinned client's
 * awsJson 1.0 PutMetricData (plain and gzip) is accepted and stored; what the service refuses is
 * refused with errors the SDK reads as the service's (name and status).
 */
import { CloudWatchClient, PutMetricDataCommand, type PutMetricDataCommandInput } from '@aws-sdk/client-cloudwatch';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { expect } from 'chai';
import { type CloudwatchMetricsPeer, startCloudwatchMetrics } from './cloudwatch-metrics.js';
import { signSigV4 } from './sigv4.js';

const NOW = 1_700_000_000_000;

describe('peers: strict CloudWatch metrics server (official SDK client)', () => {
  let cw: CloudwatchMetricsPeer;
  before(async () => {
    cw = await startCloudwatchMetrics({ now: () => NOW });
  });
  after(() => cw.close());

  const client = (opts: { secret?: string; region?: string; gzip?: boolean } = {}) =>
    new CloudWatchClient({
      endpoint: cw.url,
      region: opts.region ?? 'us-east-1',
      maxAttempts: 1,
      credentials: { accessKeyId: 'AKIDWEIRTEST', secretAccessKey: opts.secret ?? 'weir-test-secret' },
      requestHandler: new NodeHttpHandler(),
      disableRequestCompression: !opts.gzip,
      requestMinCompressionSizeBytes: 0,
    });
  const put = (input: PutMetricDataCommandInput, c = client()) =>
    c.send(new PutMetricDataCommand(input)).then(
      () => 'ok',
      (err: { name: string; $metadata?: { httpStatusCode?: number } }) => `${err.name} ${err.$metadata?.httpStatusCode}`,
    );

  it('accepts and stores what the SDK sends, plain and gzipped', async () => {
    expect(
      await put({
        Namespace: 'app',
        MetricData: [
          { MetricName: 'requests', Value: 3, Dimensions: [{ Name: 'env', Value: 'prod' }], Timestamp: new Date(NOW) },
          { MetricName: 'latency', Values: [0.5, 1], Counts: [2, 1] },
        ],
      }),
    ).to.equal('ok');
    expect(await put({ Namespace: 'app', MetricData: [{ MetricName: 'g', Value: -1.5 }] }, client({ gzip: true }))).to.equal('ok');
    expect(cw.calls).to.deep.equal([
      { namespace: 'app', datums: 2, gzip: false },
      { namespace: 'app', datums: 1, gzip: true },
    ]);
    expect(cw.datums[0]).to.deep.equal({ namespace: 'app', name: 'requests', dimensions: { env: 'prod' }, timestamp: NOW, value: 3, values: undefined, counts: undefined });
    expect(cw.datums[1]).to.deep.include({ values: [0.5, 1], counts: [2, 1], timestamp: undefined });
    expect(String(cw.requests[0]!.headers.authorization)).to.match(/Credential=AKIDWEIRTEST\/\d{8}\/us-east-1\/monitoring\/aws4_request/);
  });

  it('refuses what the service refuses, with the error names the SDK maps', async () => {
    const ok = { MetricName: 'm', Value: 1 };
    expect(await put({ Namespace: 'app', MetricData: [ok] }, client({ secret: 'wrong' }))).to.match(/^InvalidSignature(Exception)? 400$/);
    expect(await put({ Namespace: 'app', MetricData: [ok] }, client({ region: 'eu-west-1' }))).to.match(/^InvalidSignature(Exception)? 400$/);
    expect(await put({ Namespace: 'AWS/EC2', MetricData: [ok] })).to.equal('InvalidParameterValueException 400');
    expect(await put({ Namespace: 'app', MetricData: Array.from({ length: 1001 }, () => ok) })).to.equal('InvalidParameterValueException 400');
    const dims = Array.from({ length: 31 }, (_, i) => ({ Name: `d${i}`, Value: 'v' }));
    expect(await put({ Namespace: 'app', MetricData: [{ ...ok, Dimensions: dims }] })).to.equal('InvalidParameterValueException 400');
    expect(await put({ Namespace: 'app', MetricData: [{ ...ok, Dimensions: [{ Name: 'e', Value: '' }] }] })).to.equal('InvalidParameterValueException 400');
    expect(await put({ Namespace: 'app', MetricData: [{ MetricName: 'm', Value: Number.NaN }] })).to.equal('InvalidParameterValueException 400');
    expect(await put({ Namespace: 'app', MetricData: [{ MetricName: 'm', Value: 1, Values: [1] }] })).to.equal('InvalidParameterCombinationException 400');
    expect(await put({ Namespace: 'app', MetricData: [{ MetricName: 'm', Values: [1, 2], Counts: [1] }] })).to.equal('InvalidParameterCombinationException 400');
    expect(await put({ Namespace: 'app', MetricData: [{ MetricName: 'm', Values: Array.from({ length: 151 }, (_, i) => i) }] })).to.equal('InvalidParameterValueException 400');
    expect(await put({ Namespace: 'app', MetricData: [{ ...ok, Timestamp: new Date(NOW - 15 * 86_400_000) }] })).to.equal('InvalidParameterValueException 400');
    expect(await put({ Namespace: 'app', MetricData: [{ ...ok, Timestamp: new Date(NOW + 3 * 3_600_000) }] })).to.equal('InvalidParameterValueException 400');
    expect(await put({ Namespace: 'app', MetricData: [{ MetricName: 'm' }] })).to.equal('MissingRequiredParameterException 400');
    expect(cw.datums).to.have.length(3);
  });

  it('also takes the Query form (form fields, XML answers) under the same rules and signature', async () => {
    const before = cw.datums.length;
    const query = async (fields: Record<string, string>, secretAccessKey = 'weir-test-secret') => {
      const body = Buffer.from(new URLSearchParams({ Action: 'PutMetricData', Version: '2010-08-01', ...fields }).toString());
      const host = cw.url.replace('http://', '');
      const headers = signSigV4({ method: 'POST', url: '/', headers: { host, 'content-type': 'application/x-www-form-urlencoded; charset=utf-8' }, body }, { accessKeyId: 'AKIDWEIRTEST', secretAccessKey }, { region: 'us-east-1', service: 'monitoring' });
      delete headers.host;
      const res = await fetch(`${cw.url}/`, { method: 'POST', headers, body });
      return { status: res.status, text: await res.text() };
    };
    const ok = await query({
      Namespace: 'app',
      'MetricData.member.1.MetricName': 'q',
      'MetricData.member.1.Value': '2',
      'MetricData.member.1.Dimensions.member.1.Name': 'env',
      'MetricData.member.1.Dimensions.member.1.Value': 'prod',
      'MetricData.member.1.Timestamp': new Date(NOW).toISOString(),
      'MetricData.member.2.MetricName': 'd',
      'MetricData.member.2.Values.member.1': '0.5',
      'MetricData.member.2.Counts.member.1': '3',
    });
    expect(ok.status, ok.text).to.equal(200);
    expect(ok.text).to.include('<PutMetricDataResponse');
    expect(cw.datums.slice(before)).to.deep.equal([
      { namespace: 'app', name: 'q', dimensions: { env: 'prod' }, timestamp: NOW, value: 2, values: undefined, counts: undefined },
      { namespace: 'app', name: 'd', dimensions: {}, timestamp: undefined, value: undefined, values: [0.5], counts: [3] },
    ]);
    const bad = await query({ Namespace: 'app', 'MetricData.member.1.MetricName': 'q', 'MetricData.member.1.Value': 'NaN' });
    expect(bad.status).to.equal(400);
    expect(bad.text).to.include('<Code>InvalidParameterValue</Code>');
    const unsigned = await query({ Namespace: 'app', 'MetricData.member.1.MetricName': 'q', 'MetricData.member.1.Value': '1' }, 'wrong');
    expect(unsigned.status).to.equal(400);
    expect(unsigned.text).to.include('<Code>InvalidSignature</Code>');
  });
});
