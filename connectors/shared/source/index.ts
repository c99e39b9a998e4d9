/** The source skeleton and its parts: every source is built from these (see run.ts). */
export { BatchWindow, type WindowFlush } from './batch-window.js';
export { decodeConnection, serveConnections, serveDatagrams } from './connections.js';
export { type HoldWhileClosed, REQUEST_HOLD_TIMEOUT_MS, holdWhileClosed } from './hold-while-closed.js';
export { type MessageDecoder, createMessageDecoder } from './message-decoder.js';
export { OrderedSettlement } from './ordered.js';
export { type Settled, type SettledPart, SourceOutput, type SourceOutputOptions, Unsettled } from './output.js';
export { nextTurn } from './next-turn.js';
export { type Pausable, type PauseWhileClosed, pauseWhileClosed } from './pause-while-closed.js';
export { pullEvery } from './pull.js';
export { type ScrapeResult, runScraper, scrapeHttp } from './scrape.js';
export { type RunningSource, runSource } from './run.js';
export { type TurnBatcher, createTurnBatcher } from './turn-batcher.js';
