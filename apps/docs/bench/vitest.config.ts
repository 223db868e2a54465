import { defineConfig } from 'vitest/config';

// `npm run bench` here: the playground's figures, measured in Chromium (not a test: it asserts nothing about speed).
export default defineConfig({ test: { include: ['bench/**/*.figures.ts'], testTimeout: 600_000, hookTimeout: 120_000 } });
