#!/usr/bin/env node
// `npm test`: the browser-safety guard, then every workspace's tests through
// turbo, then one closing line that totals the vitest results of all packages.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const extra = process.argv.slice(2);

const guard = spawnSync(process.execPath, [join(root, 'scripts/check-browser-safe.mjs')], { stdio: 'inherit' });
const turbo = spawnSync('npx', ['turbo', 'run', 'test', '--continue', '--output-logs=full', ...extra], {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, TURBO_TELEMETRY_DISABLED: '1' },
});

let passed = 0;
let failed = 0;
let skipped = 0;
for (const group of ['packages', 'apps']) {
  const dir = join(root, group);
  if (!existsSync(dir)) continue;
  for (const name of readdirSync(dir)) {
    const file = join(dir, name, '.vitest-results.json');
    if (!existsSync(file)) continue;
    const r = JSON.parse(readFileSync(file, 'utf8'));
    passed += r.numPassedTests ?? 0;
    failed += r.numFailedTests ?? 0;
    skipped += (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0);
  }
}
const guardFailed = guard.status === 0 ? 0 : 1;
console.log(`\n${passed + (guardFailed ? 0 : 1)} passed, ${failed + guardFailed} failed` + (skipped ? `, ${skipped} skipped` : ''));
process.exit(guard.status || turbo.status || (failed ? 1 : 0));
