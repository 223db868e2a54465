// Relational operators between a string and a pointer, as dt_cook_op2
// types them: a string against NULL (void *) or a 0 constant is
// dt_node_is_ptrcompat's case and compiles; any other pointer does not.
import { describe, expect, it } from 'vitest';
import { compile } from '../src/index.js';

const errors = (src: string): string[] => compile(src).diagnostics.filter((d) => d.severity === 'error').map((d) => `${d.tag}: ${d.message}`);

describe('string comparisons with pointers', () => {
  it('accept NULL and a 0 constant on either side', () => {
    expect(errors('BEGIN { s = "a"; x = s == NULL; y = NULL != s; z = s < 0; exit(0); }')).toEqual([]);
    expect(errors('BEGIN { x = strtok("a b", " ") == NULL; exit(0); }')).toEqual([]);
  });
  it('refuse a pointer to anything else', () => {
    expect(errors('int *p; BEGIN { s = "a"; x = s == p; }')).toEqual(['D_OP_INCOMPAT: operands have incompatible types: "string" == "int *"']);
    expect(errors('BEGIN { s = "a"; x = s == 1; }')).toEqual(['D_OP_INCOMPAT: operands have incompatible types: "string" == "int"']);
  });
});
