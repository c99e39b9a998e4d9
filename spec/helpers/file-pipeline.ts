/** The config of a daemon test that reads `<tmp>/logs/*.log` with the `file` source into `sink` (TOML lines). */
export function filePipelineConfig(tmp: string, sink: readonly string[], opts: { acknowledgements?: boolean } = {}): string {
  return [
    `data_dir = "${tmp}"`,
    '[sources.files]',
    'type = "file"',
    `include = ["${tmp}/logs/**/*.log"]`,
    'glob_minimum_cooldown_ms = 100',
    '[sinks.out]',
    'inputs = ["files"]',
    ...sink,
    ...(opts.acknowledgements ? ['acknowledgements.enabled = true'] : []),
    '',
  ].join('\n');
}
