import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import { packageTestConfig } from '../../vitest.shared.mjs';

// At least two test files at a time: vitest's default (one less than the
// cores) is one on the two cores CI has, which ran every machine test after
// the guest rebuild (guest-images.test.ts) while a core was idle.
export default defineConfig(packageTestConfig({ maxWorkers: Math.max(2, availableParallelism() - 1) }));
