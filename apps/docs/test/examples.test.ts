// Every command example of the guide and provider pages ("$ wdtrace ...",
// see scripts/examples.mjs) is run against the built CLI, and its output must
// be what the page shows: the documentation shows real output. After a
// change that moves kernel addresses or probe IDs, `node scripts/examples.mjs
// --update` rewrites them (those with "..." keep their shape).
import { describe, expect, it } from 'vitest';
import { allExamples, matches, runExampleAsync } from '../scripts/examples.mjs';

interface Example {
  file: string;
  line: number;
  command: string;
  expected: string[];
}

const examples = allExamples() as Example[];

describe('documentation examples', () => {
  it('finds the pages\' examples', () => {
    expect(examples.length).toBeGreaterThan(40);
  });

  it.concurrent.each(examples.map((e) => [`${e.file}:${e.line}`, e] as const))('%s', async (_name, example) => {
    const actual = (await runExampleAsync(example)) as string[];
    if (!matches(example.expected, actual)) {
      expect(actual.join('\n'), `${example.file}:${example.line}: ${example.command}`).toBe(example.expected.join('\n'));
    }
  }, 300_000);
});
