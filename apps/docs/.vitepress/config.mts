import { defineConfig } from 'vitepress';

export default defineConfig({
  title: 'wdtrace',
  description: 'DTrace on emulated x86-64 and ARM machines that run in WebAssembly',
  base: process.env.WDTRACE_DOCS_BASE ?? '/',
  cleanUrls: true,
  srcExclude: ['README.md', 'test/**'],
  themeConfig: {
    nav: [{ text: 'Guide', link: '/guide/introduction' }],
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
          { text: 'Tracing with D', link: '/guide/d-tracing' },
          { text: 'Disassembling guest code', link: '/guide/disassembler' },
          { text: 'Tracing the guest kernel', link: '/guide/tracing-the-guest' },
          { text: 'Using wdtrace from JavaScript', link: '/guide/javascript' },
        ],
      },
      {
        text: 'Providers',
        items: [
          { text: 'fbt', link: '/providers/fbt' },
          { text: 'sdt, proc, sched, io', link: '/providers/sdt' },
          { text: 'syscall', link: '/providers/syscall' },
          { text: 'kinst', link: '/providers/kinst' },
        ],
      },
    ],
  },
});
