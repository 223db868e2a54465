// Shared vitest settings: every package runs test/**/*.test.ts and writes a
// JSON result file that scripts/run-tests.mjs totals at the end of `npm test`;
// fast-check runs with a fixed seed (scripts/vitest-setup.mjs).
const setup = new URL('./scripts/vitest-setup.mjs', import.meta.url).pathname;

export function packageTestConfig(overrides = {}) {
  return {
    test: {
      include: ['test/**/*.test.ts'],
      setupFiles: [setup],
      reporters: ['default', ['json', { outputFile: '.vitest-results.json' }]],
      testTimeout: 60_000,
      hookTimeout: 120_000,
      ...overrides,
    },
  };
}
