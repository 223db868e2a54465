// The shape of a compiler pass: a name, what it reads and writes in the
// compile context (for readers of the pipeline list), and run().
import type { CompileContext } from '../context.js';

export interface Pass {
  readonly name: string;
  readonly reads: string;
  readonly writes: string;
  run(ctx: CompileContext): void;
}
