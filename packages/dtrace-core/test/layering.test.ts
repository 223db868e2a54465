// The package's import arrows: the consumer builds on the framework, never the
// reverse, and no source file reaches itself through its imports.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const src = join(dirname(fileURLToPath(import.meta.url)), '..', 'src');
const IMPORT = /(?:^|\n)\s*(?:import|export)\b[^'";]*?\bfrom\s*['"](\.{1,2}\/[^'"]+)['"]/g;

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return name.endsWith('.ts') ? [path] : [];
  });
}

/** Each file (relative to src/) with the files it imports. */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sources(src)) {
    const text = readFileSync(file, 'utf8');
    const targets = [...text.matchAll(IMPORT)].map((m) => relative(src, normalize(join(dirname(file), m[1]!.replace(/\.js$/, '.ts')))));
    graph.set(relative(src, file), targets);
  }
  return graph;
}

/** A cycle through the graph, as the files along it, or undefined. */
function findCycle(graph: Map<string, string[]>): string[] | undefined {
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (f: string): string[] | undefined => {
    if (state.get(f) === 'done') return undefined;
    if (state.get(f) === 'open') return [...path.slice(path.indexOf(f)), f];
    state.set(f, 'open');
    path.push(f);
    for (const t of graph.get(f) ?? []) {
      const c = visit(t);
      if (c) return c;
    }
    path.pop();
    state.set(f, 'done');
    return undefined;
  };
  for (const f of graph.keys()) {
    const c = visit(f);
    if (c) return c;
  }
  return undefined;
}

describe('dtrace-core layering', () => {
  const graph = importGraph();

  it('reads every relative import it finds', () => {
    expect(graph.get(join('framework', 'state.ts'))).toContain(join('framework', 'vm.ts'));
    expect(graph.get(join('consumer', 'consume.ts'))).toContain(join('framework', 'state.ts'));
  });

  it('has the framework never import the consumer', () => {
    const upward = [...graph].flatMap(([f, ts]) => (f.startsWith('framework') ? ts.filter((t) => t.startsWith('consumer')).map((t) => `${f} -> ${t}`) : []));
    expect(upward).toEqual([]);
  });

  it('has no import cycle between its files', () => {
    expect(findCycle(graph)).toBeUndefined();
  });

  it('finds a cycle when there is one', () => {
    expect(findCycle(new Map([['a.ts', ['b.ts']], ['b.ts', ['c.ts']], ['c.ts', ['a.ts']]]))).toEqual(['a.ts', 'b.ts', 'c.ts', 'a.ts']);
  });
});
