// The site's theme: VitePress's default, with the playground component
// (loaded only on the page that uses it, with its editor and worker) and
// the "run in the playground" links' style.
import DefaultTheme from 'vitepress/theme';
import { defineAsyncComponent } from 'vue';
import type { Theme } from 'vitepress';
import './custom.css';

export default {
  extends: DefaultTheme,
  enhanceApp({ app }) {
    app.component('Playground', defineAsyncComponent(() => import('../../playground/Playground.vue')));
  },
} satisfies Theme;
