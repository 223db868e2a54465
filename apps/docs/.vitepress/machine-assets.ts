// The site's build of the machine: the guest images and the WASM CPU cores
// ship as static files, fetched per ISA when a machine of that ISA is first
// built, instead of the base64 copies the packages embed for Node (which
// would put both ISAs, and the debug cores, into every page that boots a
// guest). It may read the committed guest images and the cores' release
// builds; it changes nothing else in what the packages do.
//
// - `virtual:guest-images` maps each ISA to the URLs of its kernel, initrd
//   and modules (the playground's worker fetches them and hands them to the
//   session as `guest.machine`);
// - the kernel's embedded images module becomes empty, so a machine built
//   without images says so ("no committed guest images for ...");
// - each core's embedded module compiles its release build from the fetched
//   file on first use; the debug build is not shipped.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(fileURLToPath(new URL('../../..', import.meta.url)));
const IMAGES = join(ROOT, 'packages/kernel/guest/images');
const ISAS = ['x86_64', 'arm'] as const;

const VIRTUAL = 'virtual:guest-images';
const RESOLVED = '\0' + VIRTUAL;

const EMBEDDED_IMAGES = /\/packages\/kernel\/dist\/generated\/images\.js$/;
const EMBEDDED_CORE = /\/packages\/(isa-x86-as|isa-arm-as)\/dist\/generated\/wasm\.js$/;

/** `import` lines and an object literal naming each guest image file by a URL the build gives it. */
function imagesModule(): string {
  const imports: string[] = [];
  const isas: string[] = [];
  const url = (path: string): string => {
    if (!existsSync(path)) throw new Error(`machine-assets: guest image ${path} is missing`);
    imports.push(`import u${imports.length} from ${JSON.stringify(`${path}?url`)};`);
    return `u${imports.length - 1}`;
  };
  for (const isa of ISAS) {
    const dir = join(IMAGES, isa);
    const modDir = join(dir, 'modules');
    const modules = existsSync(modDir) ? readdirSync(modDir).filter((f) => f.endsWith('.ko')).sort() : [];
    const kernel = url(join(dir, 'kernel.elf'));
    const initrd = url(join(dir, 'initrd.cpio'));
    const mods = modules.map((f) => `${JSON.stringify(f.slice(0, -3))}: ${url(join(modDir, f))}`);
    isas.push(`  ${isa}: { kernel: ${kernel}, initrd: ${initrd}, modules: { ${mods.join(', ')} } },`);
  }
  return `${imports.join('\n')}\nexport const GUEST_IMAGE_URLS = {\n${isas.join('\n')}\n};\n`;
}

/** Replaces exactly one occurrence of `pattern` in `code`; fails the build when the generated module no longer has that shape. */
function replaceOnce(code: string, pattern: RegExp, replacement: string, file: string): string {
  const found = code.match(new RegExp(pattern.source, pattern.flags.includes('g') ? pattern.flags : pattern.flags + 'g'));
  if (found?.length !== 1) throw new Error(`machine-assets: ${file} no longer matches ${pattern} (the embedded-core module changed shape)`);
  return code.replace(pattern, replacement);
}

/** The embedded-core module with its base64 builds left out and the release build fetched from its static file. */
function coreModule(code: string, pkg: string, file: string): string {
  const wasm = join(ROOT, 'packages', pkg, 'build/release.wasm');
  if (!existsSync(wasm)) throw new Error(`machine-assets: ${wasm} is missing (build the packages first)`);
  let out = replaceOnce(code, /const DEBUG = "[^"]*";/, 'const DEBUG = "";', file);
  out = replaceOnce(out, /const RELEASE = "[^"]*";/, 'const RELEASE = "";', file);
  out = replaceOnce(out, /WebAssembly\.compile\(wasmBytes\(build\)\)/, 'fetchCore(build)', file);
  return `import coreUrl from ${JSON.stringify(`${wasm}?url`)};
${out}
/** The release core from its static file (the site ships no debug build). */
function fetchCore(build) {
  if (build !== 'release') return Promise.reject(new Error('this build of the site has only the release core'));
  return fetch(coreUrl)
    .then((r) => {
      if (!r.ok) throw new Error(\`could not load the CPU core (\${coreUrl}: HTTP \${r.status})\`);
      return r.arrayBuffer();
    })
    .then((bytes) => WebAssembly.compile(bytes));
}
`;
}

/** The plugin, typed by the hooks it has (it serves the vite that VitePress brings). */
export interface MachineAssetsPlugin {
  readonly name: string;
  readonly enforce: 'pre';
  resolveId(id: string): string | undefined;
  load(id: string): string | undefined;
}

export function machineAssets(): MachineAssetsPlugin {
  return {
    name: 'wdtrace-machine-assets',
    enforce: 'pre',
    resolveId(id) {
      return id === VIRTUAL ? RESOLVED : undefined;
    },
    load(id) {
      if (id === RESOLVED) return imagesModule();
      const path = id.split('?')[0]!;
      if (EMBEDDED_IMAGES.test(path)) return 'export const IMAGES_BASE64 = {};\n';
      const core = EMBEDDED_CORE.exec(path);
      if (core) return coreModule(readFileSync(path, 'utf8'), core[1]!, path);
      return undefined;
    },
  };
}
