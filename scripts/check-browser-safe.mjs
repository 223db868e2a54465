#!/usr/bin/env node
// Guard: everything under packages/ must run unchanged in a browser, so no
// source file there may import a `node:` module (statically, dynamically or
// through require). apps/ may: they inject file and process I/O.
//
// Usage: check-browser-safe.mjs [DIR...]   (default: packages/*/src and assembly)
import { readdirSync, readFileSync, statSync, existsSync } from 'node:fs';
import { join, dirname, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const NODE_IMPORT = /(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*|^\s*import\s+)['"](node:[^'"]+)['"]/gm;
const SOURCE = /\.(?:[cm]?[jt]s|tsx|jsx)$/;

function* walk(dir) {
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === 'generated') continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* walk(path);
    else if (SOURCE.test(name)) yield path;
  }
}

export function findNodeImports(dirs) {
  const found = [];
  for (const dir of dirs) {
    if (!existsSync(dir)) continue;
    for (const file of walk(dir)) {
      const text = readFileSync(file, 'utf8');
      for (const m of text.matchAll(NODE_IMPORT)) {
        const line = text.slice(0, m.index).split('\n').length + (m[0].startsWith('\n') ? 1 : 0);
        found.push({ file, line, module: m[1] });
      }
    }
  }
  return found;
}

function defaultDirs() {
  const pk = join(root, 'packages');
  return readdirSync(pk).flatMap((p) => [join(pk, p, 'src'), join(pk, p, 'assembly')]);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const dirs = process.argv.length > 2 ? process.argv.slice(2) : defaultDirs();
  const found = findNodeImports(dirs);
  for (const f of found) {
    console.error(`${relative(root, f.file)}:${f.line}: imports '${f.module}': packages/ must stay browser-safe (inject I/O from apps/ instead)`);
  }
  if (found.length) process.exit(1);
  console.log(`browser-safe: no node: imports under packages/`);
}
