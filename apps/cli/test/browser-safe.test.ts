import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs script without type declarations
import { findNodeImports } from '../../../scripts/check-browser-safe.mjs';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), 'wdtrace-guard-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('browser-safety guard', () => {
  it('finds static, dynamic and require imports of node: modules', () => {
    mkdirSync(join(scratch, 'src'));
    writeFileSync(join(scratch, 'src', 'a.ts'), "import { readFileSync } from 'node:fs';\nexport const x = 1;\n");
    writeFileSync(join(scratch, 'src', 'b.ts'), "export async function f() {\n  return import('node:path');\n}\n");
    writeFileSync(join(scratch, 'src', 'c.js'), "const os = require(\"node:os\");\n");
    writeFileSync(join(scratch, 'src', 'd.ts'), "// mentions node:fs in a comment only\nexport const y = 'node:fs';\n");
    const found = findNodeImports([join(scratch, 'src')]) as { file: string; line: number; module: string }[];
    expect(found.map((f) => [f.file.slice(scratch.length + 5), f.line, f.module]).sort()).toEqual([
      ['a.ts', 1, 'node:fs'],
      ['b.ts', 2, 'node:path'],
      ['c.js', 1, 'node:os'],
    ]);
  });

  it('finds none under packages/', () => {
    const dirs = ['isa-x86-as', 'isa-arm-as', 'kernel', 'providers', 'dtrace-core', 'd-lang'].flatMap((p) => [
      join(root, 'packages', p, 'src'),
      join(root, 'packages', p, 'assembly'),
    ]);
    expect(findNodeImports(dirs)).toEqual([]);
  });
});
