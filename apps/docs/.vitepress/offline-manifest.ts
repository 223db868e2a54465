// The list of the built site's files the service worker (public/offline-sw.js)
// fetches and keeps when it installs: every page, script, style, font, guest
// image and CPU core, so a visitor who has opened any page once can use the
// whole site offline, the playground on either ISA included, without having
// run it first. Pages are listed by the clean URLs the site links to.
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

export const OFFLINE_MANIFEST = 'offline-manifest.json';
const SERVICE_WORKER = 'offline-sw.js';

/** Every file under `dir`, as paths relative to it with `/` separators, sorted. */
function files(dir: string, root = dir): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...files(path, root));
    else out.push(relative(root, path).split(sep).join('/'));
  }
  return out.sort();
}

/** The URL a built file is requested by: pages by their clean URL (`guide/x.html` -> `guide/x`, `index.html` -> the folder). */
export function offlineUrl(base: string, file: string): string {
  if (file === 'index.html' || file.endsWith('/index.html')) return base + file.slice(0, -'index.html'.length);
  if (file.endsWith('.html')) return base + file.slice(0, -'.html'.length);
  return base + file;
}

/** Writes `offline-manifest.json` into the built site: a version (a hash of every file) and the URLs to keep. */
export function writeOfflineManifest(outDir: string, base: string): void {
  const hash = createHash('sha256');
  const urls: string[] = [];
  for (const file of files(outDir)) {
    if (file === OFFLINE_MANIFEST || file === SERVICE_WORKER || file === '404.html') continue;
    hash.update(file).update(readFileSync(join(outDir, file)));
    urls.push(offlineUrl(base, file));
  }
  const manifest = { version: hash.digest('hex').slice(0, 16), urls };
  writeFileSync(join(outDir, OFFLINE_MANIFEST), JSON.stringify(manifest, null, 1) + '\n');
}
