// Pass: parse the (preprocessed) text into the AST. Knows the typedef names
// of every dictionary so that `uint64_t x;` reads as a declaration.
import type { Pass } from './pass.js';

export const parsePass: Pass = {
  name: 'parse',
  reads: 'text, type dictionaries',
  writes: 'ast',
  run(ctx) {
    ctx.ast = ctx.parse(ctx.text);
  },
};
