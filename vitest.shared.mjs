// Shared vitest settings: every package runs test/**/*.test.ts and writes a
// JSON result file that scripts/run-tests.mjs totals at the end of `npm test`;
// fast-check runs with a fixed seed (scripts/vitest-setup.mjs). Time limits are
// generous: turbo runs the packages side by side on a small machine, and a
// limit is a hang detector, not a speed figure.
const setup = new URL('./scripts/vitest-setup.mjs', import.meta.url).pathname;

export function packageTestConfig(overrides = {}) {
  return {
    test: {
      include: ['test/**/*.test.ts'],
      setupFiles: [setup],
      reporters: ['default', ['json', { outputFile: '.vitest-results.json' }]],
      testTimeout: 180_000,
      hookTimeout: 600_000,
      ...overrides,
    },
  };
}
