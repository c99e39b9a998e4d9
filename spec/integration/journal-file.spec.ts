import { expect } from 'chai';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { until } from '../helpers/wait.js';
import { startWeir } from '../helpers/weir-process.js';
import { entry, journalRemote, writeJournal } from '../peers/journal.js';

describe('journal -> file through the daemon, acknowledgements on', function () {
  this.timeout(120_000);

  it('a kill -9 between batches, then a restart, yields every entry exactly once', async () => {
    journalRemote();
    const tmp = mkdtempSync(join(tmpdir(), 'weir-journal-file-'));
    try {
      const journal = join(tmp, 'journal');
      mkdirSync(journal);
      const out = join(tmp, 'out.json');
      const cfg = join(tmp, 'pipe.toml');
      writeFileSync(
        cfg,
        [
          `data_dir = "${tmp}"`,
          '[sources.jd]',
          'type = "journal"',
          `journal_directory = "${journal}"`,
          'current_boot_only = false',
          'batch_size = 4',
          '[sinks.out]',
          'type = "file"',
          'inputs = ["jd"]',
          `path = "${out}"`,
          'encoding.codec = "json"',
          'acknowledgements.enabled = true',
          '',
        ].join('\n'),
      );
      const lines = () => (existsSync(out) ? readFileSync(out, 'utf8').split('\n').filter((l) => l !== '') : []);
      const checkpoint = join(tmp, 'jd', 'checkpoint.txt');
      // the cursor's i= is the entry's sequence number in hex
      const saved = () => (existsSync(checkpoint) ? readFileSync(checkpoint, 'utf8') : '');

      writeJournal(journal, 'system', Array.from({ length: 10 }, (_, i) => entry(`m${i}`, i % 2 ? 'a.service' : 'b.service')));
      const first = startWeir(['--config', cfg]);
      await until(() => lines().length >= 10 && saved().includes(';i=a;'), 30_000, 'ten entries written and their cursor saved');
      first.child.kill('SIGKILL');
      await first.exited;

      writeJournal(journal, 'system', Array.from({ length: 10 }, (_, i) => entry(`m${10 + i}`, 'a.service')));
      const second = startWeir(['--config', cfg]);
      try {
        await until(() => lines().length >= 20 && saved().includes(';i=14;'), 30_000, 'the ten new entries');
      } finally {
        second.child.kill('SIGTERM');
        await second.exited;
      }
      const messages = lines().map((l) => (JSON.parse(l) as { message: string }).message);
      expect(messages).to.deep.equal(Array.from({ length: 20 }, (_, i) => `m${i}`));
      expect(JSON.parse(lines()[0]!)).to.include({ message: 'm0', host: 'testhost', _SYSTEMD_UNIT: 'b.service', source_type: 'journal' });
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });
});
