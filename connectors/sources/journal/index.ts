/** `journal`: the systemd journal, read through `journalctl`. */
import { defineSource } from '../../../lib/component.js';
import { JournalSourceConfig } from './config.js';
import { buildJournalSource } from './source.js';

export { JournalSourceConfig } from './config.js';
export { buildJournalSource } from './source.js';

/** The `journal` source definition. */
export const journalSource = defineSource({
  type: 'journal',
  aliases: ['journald'],
  summary: 'Read the systemd journal through journalctl, with checkpoints so a restart resumes where it stopped.',
  schema: JournalSourceConfig,
  acknowledges: true,
  build: buildJournalSource,
});
