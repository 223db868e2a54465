// Compile-time checks as illumos's libdtrace makes them: each program must
// fail with dtrace's tag, wording and line (dt_decl.c's specifier and
// prototype checks, dt_parser.c's cooking rules, dt_cook_clause's order).
import { describe, expect, it } from 'vitest';
import { compile, formatDiagnostics } from '../src/index.js';
import { corpusOptions } from './corpus-support.js';
import { fireOnce } from './fire.js';

function error(source: string): string {
  const r = compile(source, corpusOptions('x.d', source));
  expect(r.program, 'expected a compile error').toBeUndefined();
  return formatDiagnostics({ diagnostics: r.diagnostics.filter((d) => d.severity === 'error') }, { origin: { kind: 'script', name: 'x.d' }, errtags: true });
}

function compiles(source: string): void {
  const r = compile(source, corpusOptions('x.d', source));
  expect(formatDiagnostics({ diagnostics: r.diagnostics.filter((d) => d.severity === 'error') }, { origin: { kind: 'script', name: 'x.d' } })).toBe('');
}

const fails = (source: string, tag: string, line: number, message: string): void => {
  expect(error(source)).toBe(`dtrace: failed to compile script x.d: [${tag}] line ${line}: ${message}`);
};

describe('declaration specifiers (dt_decl_spec, dt_decl_attr, dt_decl_check)', () => {
  it('refuse attributes on a struct, union or enum, at the token after its tag', () => {
    fails('long struct s\n{ int i; };', 'D_DECL_LONGINT', 2, 'invalid type declaration: long and long long may only be used with integer or floating-point type');
    fails('unsigned struct s { int i; };', 'D_DECL_SIGNINT', 1, 'invalid type declaration: signed and unsigned may only be used with integer type');
    fails('enum e { A } unsigned x;', 'D_DECL_SIGNINT', 1, 'invalid type declaration: signed and unsigned may only be used with integer type');
    fails('typedef int foo_t;\nlong foo_t x;', 'D_DECL_LONGINT', 2, 'invalid type declaration: long and long long may only be used with integer or floating-point type');
  });

  it('refuse two type names in one declaration', () => {
    fails('struct a { int p; }\nstruct b { int q; };', 'D_DECL_COMBO', 2, 'invalid type combination');
    fails('BEGIN { i = (double double)0; }', 'D_DECL_COMBO', 1, 'invalid type combination');
    fails('int char x;', 'D_DECL_COMBO', 1, 'invalid type combination');
    fails('long long long x;', 'D_DECL_COMBO', 1, "the attribute 'long' may only be used at most twice in a declaration");
    fails('unsigned unsigned x;', 'D_DECL_COMBO', 1, "the attribute 'unsigned' may only be used at most once in a declaration");
  });

  it('accept attributes in any order around the type name', () => {
    compiles('int long unsigned long a; long double d; char unsigned c; short int unsigned s; BEGIN { exit(0); }');
  });
});

describe('prototypes (dt_decl_prototype)', () => {
  it('check function parameters: a void parameter is nameless and alone', () => {
    fails('int a(void v);', 'D_DECL_PROTO_NAME', 1, 'void parameter may not have a name: v');
    fails('int foo(int, void);', 'D_DECL_PROTO_VOID', 1, 'void must be sole parameter');
    compiles('int f(void); int g(int, char *, ...); BEGIN { exit(0); }');
  });

  it('check associative array signatures', () => {
    fails('int a[...];', 'D_DECL_PROTO_VARARGS', 1, 'array prototype may not use a variable-length argument list');
    fails('int a[int, void];', 'D_DECL_PROTO_TYPE', 1, 'array prototype may not use parameter of type void: (anonymous), parameter #2');
  });

  it('require a positive array dimension that fits in 32 bits', () => {
    fails('int a[-7];', 'D_DECL_ARRSUB', 1, 'positive integral constant expression or tuple signature expected as array declaration subscript');
    fails('int a[0];', 'D_DECL_ARRSUB', 1, 'positive integral constant expression or tuple signature expected as array declaration subscript');
    fails('int a[0x100000000];', 'D_DECL_ARRBIG', 1, 'array dimension too big');
    compiles('int a[0xffffffffu]; BEGIN { exit(0); }');
  });
});

describe('struct members (dt_decl_member)', () => {
  it('check bit-fields in illumos order: size, then type, then width', () => {
    fails('struct s {\n\tint a : 1;\n\tint b : 0;\n} x;', 'D_DECL_BFCONST', 3, 'positive integral constant expression expected as bit-field size');
    fails('struct s { float f : 0; } x;', 'D_DECL_BFCONST', 1, 'positive integral constant expression expected as bit-field size');
    fails('struct s { float : 1; } x;', 'D_DECL_BFTYPE', 1, 'invalid type for bit-field: (anon)');
    fails('struct s { void : 1; } x;', 'D_DECL_VOIDOBJ', 1, 'cannot have void member: (anon)');
  });

  it('ignore a nameless zero-width bit-field', () => {
    compiles('struct s { int a : 3; int : 0; int b : 2; } x; BEGIN { x.a = 1; x.b = 1; exit(0); }');
  });
});

describe('operators (dt_cook_op1, dt_cook_op2, dt_cook_op3)', () => {
  it('refuse arithmetic on pointers to void', () => {
    fails('void *p;\nBEGIN\n{\n\ttrace((int)(p + 1));\n}', 'D_OP_INCOMPAT', 4, 'operands have incompatible types: "void *" + "int"');
    fails('void *p; BEGIN { trace(2 + p); }', 'D_OP_INCOMPAT', 1, 'operands have incompatible types: "int" + "void *"');
    compiles('char *p; BEGIN { trace((long)(p + 1)); exit(0); }');
  });

  it('refuse assigning to an array', () => {
    fails('int a[3];\nint b[3];\nBEGIN\n{\n\tb = a;\n}', 'D_OP_ARRFUN', 5, 'operator = may not be applied to operand of type "int [3]"');
  });

  it('require scalar operands of && || ^^ ! and ?: (strings and arrays are not scalars)', () => {
    fails('BEGIN\n{\n\tx = "a" && "b";\n}', 'D_OP_SCALAR', 3, 'operator && requires operands of scalar type');
    fails('BEGIN { x = !"a"; }', 'D_OP_SCALAR', 1, 'operator ! requires operand of scalar type');
    fails('BEGIN { x = "a" ? 1 : 2; }', 'D_OP_SCALAR', 1, 'operator ?: expression must be of scalar type');
  });

  it('refuse an associative array referenced as a scalar', () => {
    fails('BEGIN\n{\n\ta[0] = 1;\n\ttrace(sizeof (a));\n}', 'D_IDENT_BADREF', 4, "associative array 'a' may not be referenced as scalar");
    fails('BEGIN { self->a[0] = 1; x = self->a; }', 'D_IDENT_BADREF', 1, "associative array 'a' may not be referenced as scalar");
  });

  it("check an action's argument count where it is cooked, inside an expression too", () => {
    fails('BEGIN\n{\n\tc = 1 ? printf("x") : trace();\n}', 'D_PROTO_LEN', 3, 'trace( ) prototype mismatch: 0 args passed, 1 expected');
  });

  it('cook printf arguments before parsing its format', () => {
    fails('struct s { int a : 1; } v;\nBEGIN\n{\n\tprintf("%n", sizeof (v.a));\n}', 'D_SIZEOF_BITFIELD', 4, 'cannot apply sizeof to a bit-field');
  });
});

describe('clauses (dt_cook_clause)', () => {
  it('need a scalar predicate, reported at the end of the clause', () => {
    fails('int a[4];\nBEGIN\n/a/\n{\n\texit(0);\n}', 'D_PRED_SCALAR', 6, 'predicate result must be of scalar type');
    fails('BEGIN\n/"a"/\n{\n}', 'D_PRED_SCALAR', 4, 'predicate result must be of scalar type');
  });

  it('give a predicate operator the line of the token after the closing slash', () => {
    fails('BEGIN\n/"char" && "foo"/\n{\n\texit(1);\n}', 'D_OP_SCALAR', 3, 'operator && requires operands of scalar type');
  });

  it('cook the actions before the predicate, so the predicate sees what they assign', () => {
    compiles('BEGIN /self->last == 0/ { self->last = timestamp; exit(0); }');
    compiles('BEGIN /n == 0/ { n = 1; exit(0); }');
  });

  it('cook the predicate first when the actions name what does not exist yet', () => {
    // The actions read y, which only the predicate's assignment creates.
    compiles('BEGIN /(y = 1) != 0/ { trace(y); exit(0); }');
    fails('BEGIN /z == 0/ { trace(q); }', 'D_IDENT_UNDEF', 1, 'failed to resolve z: Unknown variable name');
  });
});

describe('signatures (dt_idcook_sign, dt_printa_validate, dt_action_aggregate)', () => {
  it("check an associative array's and an aggregation's keys against their first use", () => {
    fails('BEGIN\n{\n\ta[1] = 1;\n\ttrace(a[1, 2]);\n}', 'D_PROTO_LEN', 4, 'a[ ] prototype mismatch: 2 keys passed, 1 expected');
    fails('struct r { int p; } r1; struct q { int p; } q1;\nBEGIN { a[r1] = 1; a[q1] = 2; }', 'D_PROTO_ARG', 2, 'a[ ] key #1 is incompatible with prototype:\n\tprototype: struct r\n\t      key: struct q');
    fails('BEGIN { @a[1] = count(); @a["x"] = count(); }', 'D_PROTO_ARG', 1, '@a[ ] key #1 is incompatible with prototype:\n\tprototype: int\n\t      key: string');
    fails('BEGIN { @a[1] = count(); @a[1, 2] = count(); }', 'D_PROTO_LEN', 1, '@a[ ] prototype mismatch: 2 keys passed, 1 expected');
  });

  it('check that aggregations printa() prints together have the same keys', () => {
    fails('BEGIN\n{\n\t@a = count();\n\t@b[1] = count();\n\tprinta(@a, @b);\n}', 'D_PRINTA_AGGKEY', 5, 'printa( ): @a and @b do not have matching key signatures: @a has 0 keys, @b has 1 key');
    fails('BEGIN { @foo[123] = sum(1); @bar["x"] = sum(2); printa("%d %@d %@d\\n", @foo, @bar); }', 'D_PRINTA_AGGPROTO', 1, 'printa( ): @bar[ ] key #1 is incompatible with @foo:\n      foo key #1: int\n      bar key #1: string');
    compiles('BEGIN { @a[1, "x"] = count(); @b[2, "y"] = sum(1); printa(@a, @b); exit(0); }');
  });

  it('need a scalar increment for quantize(), lquantize() and llquantize()', () => {
    fails('BEGIN { @ = quantize(1, ""); }', 'D_PROTO_ARG', 1, 'quantize( ) increment value (argument #2) must be of scalar type');
    fails('BEGIN { @ = lquantize(1, 0, 10, 2, ""); }', 'D_PROTO_ARG', 1, 'lquantize( ) increment value (argument #5) must be of scalar type');
    fails('BEGIN { @ = llquantize(1, 10, 0, 2, 20, ""); }', 'D_PROTO_ARG', 1, 'llquantize( ) increment value (argument #6) must be of scalar type');
    compiles('BEGIN { @a = quantize(1, 3); @b = lquantize(1, 0, 10, 2, 3); exit(0); }');
  });

  it("check tracemem()'s size against its size_t prototype before its value", () => {
    fails('BEGIN { tracemem(123, "s"); }', 'D_PROTO_ARG', 1, 'tracemem( ) argument #2 is incompatible with prototype:\n\tprototype: size_t\n\t argument: string');
  });
});

describe('struct and enum definitions (dt_decl_member, dt_decl_enumerator, dt_decl_type)', () => {
  it('report a duplicate member or enumerator as CTF refuses it', () => {
    fails('struct foo {\n\tint x;\n\tchar x;\n};', 'D_UNKNOWN', 3, "failed to define member 'x': Duplicate member or variable name");
    fails('enum colors {\n\tRED,\n\tGREEN,\n\tGREEN = 2,\n\tBLUE\n};', 'D_UNKNOWN', 4, "failed to define enumerator 'GREEN': Duplicate member or variable name");
    fails('enum a { X };\nenum b { X };', 'D_DECL_IDRED', 2, 'identifier redeclared: X');
  });

  it("check an enumerator's value at the token after it", () => {
    fails('enum e {\n\tTAG = "x"\n};', 'D_DECL_ENCONST', 3, "enumerator 'TAG' must be assigned to an integral constant expression");
    fails('enum e {\n\ttoobig = 2147483648\n};', 'D_DECL_ENOFLOW', 3, "enumerator 'toobig' value overflows INT_MAX (2147483647)");
    fails('enum e {\n\ttoosmall = -2147483649,\n};', 'D_DECL_ENOFLOW', 2, "enumerator 'toosmall' value overflows INT_MAX (2147483647)");
    // An implicit value is the previous one plus one, as an int.
    compiles('enum e { A = 0x7fffffff, B }; BEGIN { trace(B); exit(0); }');
  });

  it('name the type looked up for attributes no C type combines', () => {
    fails('BEGIN { i = (short long)0; }', 'D_UNKNOWN', 1, 'failed to resolve type short long : Unknown type name');
    fails('signed unsigned int x;', 'D_UNKNOWN', 1, 'failed to resolve type signed unsigned int: Unknown type name');
    fails('short double d;', 'D_UNKNOWN', 1, 'failed to resolve type short double: Unknown type name');
  });
});

describe('end of input (dt_lex.l)', () => {
  it('inside a comment or a control line is an error at the end of the file', () => {
    expect(error('BEGIN { exit(0); }\n/* no end\n')).toBe('dtrace: failed to compile script x.d: [D_SYNTAX] line 3: end-of-file encountered before matching */');
    expect(error('inline int foo = 0;\n#pragma')).toBe('dtrace: failed to compile script x.d: [D_SYNTAX] line 2: end-of-file encountered before end of control line');
    compiles('#pragma D option quiet\nBEGIN { exit(0); }\n#pragma D option bufsize=4m\n');
  });
});

describe('pragmas (dt_pragma.c, dt_options.c)', () => {
  it('refuse options that set up the compiler itself from within a program', () => {
    fails('#pragma D option ldpath=/nonexistent/directory\nBEGIN { exit(0); }', 'D_PRAGMA_OPTSET', 1, "failed to set option 'ldpath' to '/nonexistent/directory': Option cannot be used from within a D program");
    fails('#pragma D option define=X\nBEGIN { exit(0); }', 'D_PRAGMA_OPTSET', 1, "failed to set option 'define' to 'X': Option cannot be used from within a D program");
    fails('#pragma D option ldpath\nBEGIN { exit(0); }', 'D_PRAGMA_OPTSET', 1, "failed to set option 'ldpath': Invalid value for specified option");
  });

  it('refuse a library dependency in the main program', () => {
    fails('#pragma D depends_on library net.d\nBEGIN { exit(0); }', 'D_PRAGMA_DEPEND', 1, 'main program may not explicitly depend on a library');
  });
});

describe('operator wording (dt_cook_op1, dt_cook_op2)', () => {
  it('say "an operand" for unary operators and "operands" for binary ones', () => {
    fails('BEGIN { p = 123 + -trace(0); }', 'D_OP_ARITH', 1, 'operator - requires an operand of arithmetic type');
    fails('BEGIN { p = ~"a"; }', 'D_OP_INT', 1, 'operator ~ requires an operand of integral type');
    fails('BEGIN\n/"char" & "foo"/\n{\n}', 'D_OP_INT', 3, 'operator & requires operands of integral type');
    fails('BEGIN { p = "a" * 2; }', 'D_OP_ARITH', 1, 'operator * requires operands of arithmetic type');
  });
});

describe('translators (dt_node_xlator, dt_cook_xlator)', () => {
  const defs = 'struct in { int i; char c; };\nstruct out { int myi; char *myc; };\n';
  it('report at the end of the definition', () => {
    fails(`${defs}translator struct out < struct in *p >\n{\n\tmyi = p->i;\n\tmyc = p->c;\n};`, 'D_XLATE_INCOMPAT', 7, 'translator member myc definition uses incompatible types: "char *" = "char"');
    fails(`${defs}translator struct nosuch < struct in *p >\n{\n\tmyi = p->i;\n};`, 'D_XLATE_SOU', 6, 'incomplete struct/union/enum struct nosuch');
    const t = 'translator struct out < struct in *p >\n{\n\tmyi = p->i;\n\tmyc = 0;\n};\n';
    fails(`${defs}${t}${t}`, 'D_XLATE_REDECL', 12, 'translator from struct in * to struct out has already been declared');
  });
});

describe('action order (dt_compile_one_clause)', () => {
  it('count exit() and every other non-destructive action but discard() as recording data', () => {
    fails('BEGIN\n{\n\tcommit(1);\n\texit(0);\n}', 'D_DREC_COMM', 4, 'data-recording actions may not follow commit( )');
    fails('BEGIN { exit(0); commit(1); }', 'D_COMM_DREC', 1, 'commit( ) may not follow data-recording action(s)');
    compiles('BEGIN { commit(1); discard(2); } BEGIN { speculate(1); trace(1); } BEGIN { exit(0); }');
  });
});

describe('character constants (dt_lex.l)', () => {
  const FIRE = { id: 1, provider: 'test', module: 'kernel', function: 'f', name: 'fire' };
  const run = (body: string): string => fireOnce(`test:::fire { ${body} }`, [], { probes: { match: () => [FIRE] } });
  it('are ints, multi-character ones packed big-endian, unknown escapes keeping their backslash', () => {
    expect(run(`printf("%d %d %d %d %d\\n", 'a', '\\'', '\\?', '\\0103', 'ab\\"d');`)).toBe('97 23591 23615 2099 1633821284\n');
    expect(run(`printf("%d\\n", 'a\\bcdefgh');`)).toBe('6991947704341784424\n');
  });

  it("have the size of an int, and a string constant its length and NUL's", () => {
    expect(run(`printf("%d %d %d\\n", sizeof ('c'), sizeof (10 * 'c'), sizeof "hi");`)).toBe('4 4 3\n');
  });
});

describe('control lines', () => {
  it('may stand between the statements of a clause', () => {
    compiles('tick-10ms\n{\n#pragma D option quiet\n\texit(0);\n}\n');
    fails('BEGIN\n{\n#pragma D option nosuchoption\n\texit(0);\n}\n', 'D_PRAGMA_OPTSET', 3, "failed to set option 'nosuchoption': Invalid option name");
  });
});

describe('probe descriptions in a file (dt_grammar.y)', () => {
  it('need a predicate or actions after them', () => {
    fails('profile-1\n\texit(0);\n}', 'D_SYNTAX', 1, 'expected predicate and/or actions following probe description');
    // A probe given on the command line (-n BEGIN) takes the default action.
    expect(compile('BEGIN', { origin: { kind: 'probe', text: 'BEGIN' } }).program).toBeDefined();
  });
});
