import { defineConfig } from 'vitepress';
import { machineAssets } from './machine-assets';
import { writeOfflineManifest } from './offline-manifest';
import { playgroundLinks } from './playground-links';

export default defineConfig({
  title: 'wdtrace',
  description: 'DTrace on emulated x86-64 and ARM machines that run in WebAssembly',
  base: process.env.WDTRACE_DOCS_BASE ?? '/',
  cleanUrls: true,
  srcExclude: ['README.md', 'test/**', 'bench/**'],
  // What the service worker fetches when it installs, so the whole site — both ISAs' machines included — works offline once opened.
  buildEnd: (site) => writeOfflineManifest(site.outDir, site.site.base),
  markdown: {
    // Every command example that runs a trace gets a "run in the playground" link.
    config: (md) => playgroundLinks(md),
  },
  vite: {
    plugins: [machineAssets()],
    // The playground's worker imports the guest images and cores per ISA on demand.
    worker: { format: 'es', plugins: () => [machineAssets()] },
  },
  themeConfig: {
    nav: [
      { text: 'Guide', link: '/guide/introduction' },
      { text: 'Playground', link: '/playground' },
    ],
    sidebar: [
      {
        text: 'Guide',
        items: [
          { text: 'Introduction', link: '/guide/introduction' },
          { text: 'Getting started', link: '/guide/getting-started' },
          { text: 'Architecture', link: '/guide/architecture' },
        ],
      },
      {
        text: 'Using wdtrace',
        items: [
          { text: 'Running programs', link: '/guide/running-programs' },
          { text: 'The guest system', link: '/guide/the-guest' },
          { text: 'Tracing with D', link: '/guide/d-tracing' },
          { text: 'Disassembling guest code', link: '/guide/disassembler' },
          { text: 'Tracing the guest kernel', link: '/guide/tracing-the-guest' },
          { text: 'Tracing your own program', link: '/guide/tracing-your-program' },
          { text: 'Using wdtrace from JavaScript', link: '/guide/javascript' },
          { text: 'Differences from dtrace(1)', link: '/guide/differences' },
          { text: 'Playground', link: '/playground' },
        ],
      },
      {
        text: 'Providers',
        items: [
          { text: 'dtrace', link: '/providers/dtrace' },
          { text: 'profile', link: '/providers/profile' },
          { text: 'fbt', link: '/providers/fbt' },
          { text: 'sdt, proc, sched, io', link: '/providers/sdt' },
          { text: 'syscall', link: '/providers/syscall' },
          { text: 'kinst', link: '/providers/kinst' },
          { text: 'pid', link: '/providers/pid' },
          { text: 'usdt', link: '/providers/usdt' },
        ],
      },
    ],
  },
});
