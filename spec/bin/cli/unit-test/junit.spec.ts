/** JUnit XML: escaping, and the counts CI servers read. */
import { expect } from 'chai';
import { junitReport } from '../../../../bin/cli/unit-test/junit.js';

describe('junitReport', () => {
  it('escapes names and failure text, and drops characters XML cannot hold', () => {
    const xml = junitReport([{ name: 'a <b> & "c"', errors: ['first\u0001 line', 'x < y'], seconds: 0.0126 }], 1);
    expect(xml).to.include('<testcase name="a &lt;b&gt; &amp; &quot;c&quot;" time="0.013">');
    expect(xml).to.include('<failure message="first line">first line\nx &lt; y</failure>');
    expect(xml).to.include('tests="1" failures="1" errors="0" time="1.000"');
  });

  it('passed tests are empty test cases', () => {
    const xml = junitReport([{ name: 'ok', errors: [], seconds: 0 }], 0);
    expect(xml).to.equal(
      [
        '<?xml version="1.0" encoding="UTF-8"?>',
        '<testsuites name="weir unit tests" tests="1" failures="0" errors="0" time="0.000">',
        '  <testsuite name="Test Suite" tests="1" disabled="0" errors="0" failures="0" time="0.000">',
        '    <testcase name="ok" time="0.000"/>',
        '  </testsuite>',
        '</testsuites>',
        '',
      ].join('\n'),
    );
  });
});
