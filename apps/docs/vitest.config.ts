import { defineConfig } from 'vitest/config';
import { packageTestConfig } from '../../vitest.shared.mjs';

// Examples boot guests in child processes: two at a time on the two cores CI has.
export default defineConfig(packageTestConfig({ maxConcurrency: 2 }));
