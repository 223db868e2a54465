import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import { packageTestConfig } from '../../vitest.shared.mjs';

// At least two test files at a time: vitest's default (one less than the
// cores) is one on the two cores CI has, and one file at a time left a core
// idle once the smaller packages were done. Concurrent tests (the running
// system's, each a wdtrace process booting a guest) run two at a time.
export default defineConfig(packageTestConfig({ maxWorkers: Math.max(2, availableParallelism() - 1), maxConcurrency: 2 }));
