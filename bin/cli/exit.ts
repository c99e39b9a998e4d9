/** Exit codes of the CLI (README "Exit codes" lists them for operators). */

/** A component could not start, a --require-healthy check failed, or the drain outlasted --graceful-shutdown-limit-secs. */
export const EXIT_FAILURE = 1;
/** Events were lost (see the final account) and --exit-nonzero-on-loss is set. */
export const EXIT_LOSS = 2;
/** EX_CONFIG (sysexits), as Vector: the configuration is invalid. */
export const EXIT_CONFIG = 78;
/** A second SIGINT or SIGTERM cut the drain short: 128 + the signal number, as a shell reports a signal. */
export const exitForSignal = (signal: 'SIGINT' | 'SIGTERM'): number => (signal === 'SIGINT' ? 130 : 143);
