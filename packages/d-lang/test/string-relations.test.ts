// Relational operators between a string and a pointer, as dt_cook_op2
// types them: a string against NULL (void *) or a 0 constant is
// dt_node_is_ptrcompat's case and compiles; any other pointer does not.
import { describe, expect, it } from 'vitest';
import { compile } from '../src/index.js';
import { fireOnce } from './fire.js';

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

describe('string comparisons at run time', () => {
  // dtrace_strncmp: byte by byte as unsigned chars, up to the NUL or strsize bytes; a prefix is less; NULL reads as "".
  it('order strings by their bytes, a prefix first, NULL as the empty string', () => {
    const out = fireOnce(
      'test:kernel:f:fire { a = "abc"; b = strjoin("ab", "d"); n = strtok("  ", " "); ' +
        'printf("%d %d %d %d\\n", a < b, a == strjoin("a", "bc"), a > strjoin("ab", ""), strjoin("ab", "") < a); ' +
        'printf("%d %d %d %d\\n", n == "", "" == n, a > n, n < a); ' +
        'printf("%d %d %d\\n", strjoin("\\xff", "") > a, lltostr(arg0) == "12", lltostr(arg0) < lltostr(arg1)); }',
      [12n, 9n],
    );
    expect(out).toBe('1 1 1 1\n1 1 1 1\n1 1 1\n');
  });
  it('compare no more than strsize bytes', () => {
    const out = fireOnce('#pragma D option strsize=4\ntest:kernel:f:fire { a = "abcdX"; b = "abcdY"; printf("%d %d %d\\n", a == b, a == "abcdY", strjoin("a", "X") == strjoin("a", "Y")); }', []);
    expect(out).toBe('1 0 0\n');
  });
});
