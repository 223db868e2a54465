// The site's service worker, so a page once loaded opens and runs offline:
// every same-origin GET goes to the network first and its response is
// kept; when the network fails, the kept response answers. The playground
// fetches each ISA's guest images and CPU core the first time it traces
// that ISA, so those it has run work offline too. Touches its own cache only.
const CACHE = 'wdtrace-site-v1';

self.addEventListener('install', () => self.skipWaiting());

self.addEventListener('activate', (event) => {
  event.waitUntil(
    (async () => {
      for (const name of await caches.keys()) if (name !== CACHE) await caches.delete(name);
      await self.clients.claim();
    })(),
  );
});

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
        const kept = await cache.match(request, { ignoreSearch: true });
        if (kept) return kept;
        throw error;
      }
    })(),
  );
});
