import { defineConfig } from 'vitest/config';
import { packageTestConfig } from '../../vitest.shared.mjs';

export default defineConfig(packageTestConfig());
