import { expect } from 'chai';
import { LogRoot, levelFrom } from '../../lib/log.js';

describe('daemon log', () => {
  it('rate-limits identical warnings per component and reports how many were suppressed', () => {
    const lines: string[] = [];
    let now = 0;
    const root = new LogRoot('info', { write: (l) => lines.push(l) }, 10_000, () => now);
    const log = root.logger({ component_id: 'a' });
    for (let i = 0; i < 100; i++) log.error('bad frame');
    root.logger({ component_id: 'b' }).error('bad frame');
    expect(lines).to.have.length(2);
    now = 10_001;
    log.error('bad frame');
    expect(lines).to.have.length(3);
    expect(lines[2]).to.include('internal_log_rate_limit_suppressed=99');
  });

  it('filters by level; -v and -q move from WEIR_LOG', () => {
    const lines: string[] = [];
    const root = new LogRoot('warn', { write: (l) => lines.push(l) });
    root.logger().info('hidden');
    root.logger().warn('shown');
    expect(lines).to.have.length(1);
    expect(levelFrom(undefined, 0, 0)).to.equal('info');
    expect(levelFrom('debug', 0, 0)).to.equal('debug');
    expect(levelFrom(undefined, 1, 0)).to.equal('debug');
    expect(levelFrom(undefined, 0, 2)).to.equal('error');
    expect(levelFrom('bogus', 0, 1)).to.equal('warn');
  });
});
