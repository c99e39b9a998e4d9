/** JUnit XML of a unit test run (`--junit-report`), the layout CI servers read: one suite, a case per test. */

export interface CaseResult {
  readonly name: string;
  readonly errors: readonly string[];
  /** Wall-clock seconds the test took. */
  readonly seconds: number;
}

const escape = (s: string) =>
  s
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    // characters XML 1.0 cannot hold at all
    .replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g, '');

const secs = (n: number) => n.toFixed(3);

export function junitReport(cases: readonly CaseResult[], totalSeconds: number): string {
  const failures = cases.filter((c) => c.errors.length > 0).length;
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="weir unit tests" tests="${cases.length}" failures="${failures}" errors="0" time="${secs(totalSeconds)}">`,
    `  <testsuite name="Test Suite" tests="${cases.length}" disabled="0" errors="0" failures="${failures}" time="${secs(totalSeconds)}">`,
  ];
  for (const c of cases) {
    if (c.errors.length === 0) lines.push(`    <testcase name="${escape(c.name)}" time="${secs(c.seconds)}"/>`);
    else {
      lines.push(`    <testcase name="${escape(c.name)}" time="${secs(c.seconds)}">`);
      lines.push(`      <failure message="${escape(c.errors[0]!.split('\n')[0]!)}">${escape(c.errors.join('\n'))}</failure>`);
      lines.push('    </testcase>');
    }
  }
  lines.push('  </testsuite>', '</testsuites>', '');
  return lines.join('\n');
}
