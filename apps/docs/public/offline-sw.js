// The site's service worker, so the site once opened works offline. When it
// installs it fetches and keeps every file the build lists in
// offline-manifest.json (pages, scripts, fonts, both ISAs' guest images and
// CPU cores), so the playground runs offline on either ISA without having
// run before. After that every same-origin GET goes to the network first
// and its response is kept; when the network fails, the kept response
// answers. Touches its own cache only.
const CACHE = 'wdtrace-site-v1';
const MANIFEST = new URL('offline-manifest.json', self.registration.scope).href;

/** Fetches and keeps the manifest's files, a few at a time; a file that fails to load is left to the network-first path. */
async function precache() {
  let manifest;
  try {
    const response = await fetch(MANIFEST, { cache: 'no-cache' });
    if (!response.ok) return;
    manifest = await response.json();
  } catch {
    return; // offline or no manifest (a development server): nothing to keep ahead of time
  }
  const cache = await caches.open(CACHE);
  const urls = Array.isArray(manifest.urls) ? manifest.urls.map((u) => new URL(u, self.location.origin).href) : [];
  let next = 0;
  const lane = async () => {
    while (next < urls.length) {
      const url = urls[next++];
      try {
        const response = await fetch(url, { cache: 'no-cache' });
        if (response.ok) await cache.put(url, response);
      } catch {
        // kept later, when the page itself loads it
      }
    }
  };
  await Promise.all([lane(), lane(), lane(), lane()]);
}

self.addEventListener('install', (event) => {
  event.waitUntil(precache().then(() => self.skipWaiting()));
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    (async () => {
      for (const name of await caches.keys()) if (name !== CACHE) await caches.delete(name);
      await self.clients.claim();
    })(),
  );
});

/** The kept response for a request: as asked, or a page by its other spelling (`/x` and `/x.html`, `/` and `/index.html`). */
async function kept(cache, request) {
  const found = await cache.match(request, { ignoreSearch: true });
  if (found || request.mode !== 'navigate') return found;
  const url = new URL(request.url);
  url.search = '';
  url.hash = '';
  const path = url.pathname;
  if (path.endsWith('/')) url.pathname = path + 'index.html';
  else if (path.endsWith('.html')) url.pathname = path.slice(0, -'.html'.length);
  else url.pathname = path + '.html';
  return cache.match(url.href);
}

self.addEventListener('fetch', (event) => {
  const request = event.request;
  if (request.method !== 'GET' || new URL(request.url).origin !== self.location.origin) return;
  event.respondWith(
    (async () => {
      const cache = await caches.open(CACHE);
      try {
        const response = await fetch(request);
        if (response.ok) await cache.put(request, response.clone());
        return response;
      } catch (error) {
        const found = await kept(cache, request);
        if (found) return found;
        throw error;
      }
    })(),
  );
});
