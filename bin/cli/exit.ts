/** Exit codes of the CLI. */

/** EX_CONFIG (sysexits), as Vector: the configuration is invalid. */
export const EXIT_CONFIG = 78;
