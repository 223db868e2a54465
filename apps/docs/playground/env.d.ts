// Modules the site's build provides (see .vitepress/machine-assets.ts).
declare module 'virtual:guest-images' {
  /** URLs of each ISA's guest images: the kernel, the initrd and the loadable modules by name. */
  export const GUEST_IMAGE_URLS: Readonly<Record<'x86_64' | 'arm', { readonly kernel: string; readonly initrd: string; readonly modules: Readonly<Record<string, string>> }>>;
}

declare module '*.vue' {
  import type { DefineComponent } from 'vue';
  const component: DefineComponent;
  export default component;
}
