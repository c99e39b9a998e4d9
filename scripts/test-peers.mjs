#!/usr/bin/env node
// Installs the real protocol peers the test suite talks to (Debian packages). As root it installs
// what is missing; otherwise it says what to install. Under CI a missing peer fails the run here,
// loudly, instead of letting tests skip.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Debian's multiarch library folder of this machine. */
const LIB = `/usr/lib/${process.arch === 'arm64' ? 'aarch64' : 'x86_64'}-linux-gnu`;

/** Debian package -> a file it provides that tests run. */
const PEERS = {
  // real journal files for the journal source (spec/peers/journal.ts); the binary lives outside PATH
  'systemd-journal-remote': '/lib/systemd/systemd-journal-remote',
  openssl: '/usr/bin/openssl',
  tinyproxy: '/usr/bin/tinyproxy',
  // real InfluxDB 1.x for tsdb_metrics (spec/peers/influxdb1.ts); policy-rc.d keeps the service from starting
  influxdb: '/usr/bin/influxd',
  'influxdb-client': '/usr/bin/influx',
  // a real NATS server with JetStream for the nats source and sink (spec/peers/nats-server.ts); policy-rc.d keeps its service from starting
  'nats-server': '/usr/sbin/nats-server',
  // node-exporter, the reference the host_metrics source's values are checked against (spec/peers/node-exporter.ts); policy-rc.d keeps its service from starting
  'prometheus-node-exporter': '/usr/bin/prometheus-node-exporter',
  // a real Prometheus (and promtool) for the prometheus_* sources and sinks (spec/peers/prometheus.ts); policy-rc.d keeps its service from starting
  prometheus: '/usr/bin/prometheus',
  // librdkafka's command-line client, an independent check of the test Kafka broker and the kafka source and sink (spec/peers/kafka-broker.ts)
  kcat: '/usr/bin/kcat',
  // socket activation for the stream listener's systemd#N addresses (spec/connectors/shared/tcp-listener.spec.ts);
  // the same package has systemd-analyze, which checks deploy/systemd/weir.service (spec/deploy/systemd.spec.ts)
  systemd: '/usr/bin/systemd-socket-activate',
  // the Python fluent forward client for the logfwd source (spec/connectors/sources/logfwd/clients.spec.ts)
  'python3-fluent-logger': '/usr/lib/python3/dist-packages/fluent/sender.py',
  // real rotations (create, copytruncate, compress) for the file source (spec/connectors/sources/file/rotation.spec.ts)
  logrotate: '/usr/sbin/logrotate',
  gzip: '/usr/bin/gzip',
  // a real terminal for `weir top` (spec/integration/api-clients.spec.ts)
  tmux: '/usr/bin/tmux',
  // a real browser for the web console (spec/integration/web-console.spec.ts)
  chromium: '/usr/bin/chromium',
  // util-linux `logger`, a real RFC 5424 / RFC 3164 sender for the syslog source (spec/connectors/sources/syslog/)
  bsdutils: '/usr/bin/logger',
  // `ss`: the kernel's view of the syslog source's sockets (keepalive timer, receive buffer)
  iproute2: '/usr/bin/ss',
  // rsyslogd's shared libraries; rsyslogd itself is unpacked below (it conflicts with syslog-ng-core)
  libestr0: `${LIB}/libestr.so.0`,
  libfastjson4: `${LIB}/libfastjson.so.4`,
  liblognorm5: `${LIB}/liblognorm.so.5`,
};

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/** Unpacked peers live here (spec/peers/rsyslog.ts looks in the same place). */
const PEERS_DIR = process.env.WEIR_PEERS_DIR || join(repoRoot, 'tmp', 'peers');

/**
 * rsyslogd for the syslog source (spec/peers/rsyslog.ts): the Debian package unpacked, not
 * installed, since installing it would remove syslog-ng-core and start a system daemon. Idempotent:
 * nothing happens once the binary is there.
 */
function unpackRsyslog() {
  const root = join(PEERS_DIR, 'rsyslog');
  if (existsSync(join(root, 'usr/sbin/rsyslogd'))) return undefined;
  const work = join(PEERS_DIR, 'rsyslog-download');
  try {
    rmSync(work, { recursive: true, force: true });
    mkdirSync(work, { recursive: true });
    const download = () => execFileSync('apt-get', ['download', '-qq', 'rsyslog'], { cwd: work, stdio: ['ignore', 'ignore', 'inherit'] });
    try {
      download();
    } catch {
      // a fresh machine has no package lists yet
      execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit' });
      download();
    }
    const deb = readdirSync(work).find((f) => f.startsWith('rsyslog_') && f.endsWith('.deb'));
    if (deb === undefined) return 'apt-get download rsyslog left no .deb';
    rmSync(root, { recursive: true, force: true });
    execFileSync('dpkg', ['-x', join(work, deb), root]);
    rmSync(work, { recursive: true, force: true });
    return existsSync(join(root, 'usr/sbin/rsyslogd')) ? undefined : 'the rsyslog package holds no usr/sbin/rsyslogd';
  } catch (err) {
    return `unpacking rsyslog failed: ${err.message}`;
  }
}
const rsyslogProblem = unpackRsyslog();
if (rsyslogProblem !== undefined) {
  if (process.env.CI) {
    console.error(`test peers: ${rsyslogProblem}`);
    process.exit(1);
  }
  console.error(`warning: ${rsyslogProblem}; the rsyslog specs will fail`);
}

// The Pub/Sub emulator (cloudg_pubsub specs, spec/peers/pubsub-emulator.ts) cannot be installed
// from the reachable package repositories: it is preinstalled (google-cloud-cli-pubsub-emulator and
// a Java 17 runtime) or named by PUBSUB_EMULATOR_BIN. Under CI its absence fails the run here.
const PUBSUB_EMULATOR = process.env.PUBSUB_EMULATOR_BIN || '/usr/lib/google-cloud-sdk/platform/pubsub-emulator/bin/cloud-pubsub-emulator';
if (!existsSync(PUBSUB_EMULATOR) || !existsSync('/usr/bin/java')) {
  const m = `test peers: the Pub/Sub emulator is missing (${PUBSUB_EMULATOR} and /usr/bin/java; Debian packages google-cloud-cli-pubsub-emulator and openjdk-17-jre-headless, which apt cannot install here)`;
  if (process.env.CI) {
    console.error(m);
    process.exit(1);
  }
  console.error(`warning: ${m}; the cloudg_pubsub emulator specs will skip`);
}

const missing = Object.entries(PEERS).filter(([, bin]) => !existsSync(bin) && !existsSync(bin.replace('/usr/bin/', '/usr/sbin/')));
if (missing.length === 0) process.exit(0);
const names = missing.map(([pkg]) => pkg);
const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
if (isRoot) {
  console.error(`test peers: installing ${names.join(', ')} with apt-get`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  // packages such as nats-server and influxdb enable a system service: a policy-rc.d that exits 101
  // keeps invoke-rc.d from starting it, since the tests run their own instances on loopback ports
  const POLICY = '/usr/sbin/policy-rc.d';
  const ownPolicy = !existsSync(POLICY);
  if (ownPolicy) writeFileSync(POLICY, '#!/bin/sh\nexit 101\n', { mode: 0o755 });
  try {
    execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
    execFileSync('apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...names], { stdio: 'inherit', env });
  } catch (err) {
    console.error(`test peers: apt-get failed: ${err.message}`);
    process.exitCode = 1;
  } finally {
    if (ownPolicy) rmSync(POLICY, { force: true });
  }
  if (process.exitCode === 1) process.exit(1);
  const still = missing.filter(([, bin]) => !existsSync(bin) && !existsSync(bin.replace('/usr/bin/', '/usr/sbin/')));
  if (still.length) {
    console.error(`test peers: still missing after install: ${still.map(([p]) => p).join(', ')}`);
    process.exit(1);
  }
  process.exit(0);
}
const msg = `test peers missing: ${names.join(', ')} (install them: sudo apt-get install ${names.join(' ')})`;
if (process.env.CI) {
  console.error(msg);
  process.exit(1);
}
console.error(`warning: ${msg}; the tests that need them will fail`);
