// D for the playground's editor: a CodeMirror stream language that colours
// what the DTrace guide's listings set apart — probe descriptions at the
// start of a clause, predicates' slashes, keywords and C types, D's
// built-in variables, actions and subroutines, aggregations (@name),
// macro variables ($target), self-> and this-> variables, strings,
// numbers, comments and control lines (#pragma D option ...).
import { StreamLanguage, type StreamParser } from '@codemirror/language';

const KEYWORDS = new Set([
  'auto', 'break', 'case', 'const', 'continue', 'counter', 'default', 'do', 'else', 'enum', 'extern', 'for', 'goto', 'if', 'import',
  'inline', 'offsetof', 'probe', 'provider', 'register', 'restrict', 'return', 'self', 'sizeof', 'static', 'string', 'stringof',
  'struct', 'switch', 'this', 'translator', 'typedef', 'union', 'volatile', 'while', 'xlate',
]);

const TYPES = new Set([
  'char', 'short', 'int', 'long', 'float', 'double', 'signed', 'unsigned', 'void', 'int8_t', 'int16_t', 'int32_t', 'int64_t',
  'uint8_t', 'uint16_t', 'uint32_t', 'uint64_t', 'intptr_t', 'uintptr_t', 'size_t', 'ssize_t', 'pid_t', 'uid_t', 'userland',
]);

/** D's built-in variables (the guide's chapter 3 table). */
const VARIABLES = new Set([
  'args', 'arg0', 'arg1', 'arg2', 'arg3', 'arg4', 'arg5', 'arg6', 'arg7', 'arg8', 'arg9', 'caller', 'chip', 'cpu', 'curcpu',
  'curlwpsinfo', 'curpsinfo', 'curthread', 'cwd', 'epid', 'errno', 'execname', 'gid', 'id', 'ipl', 'lgrp', 'pid', 'ppid',
  'probefunc', 'probemod', 'probename', 'probeprov', 'pset', 'root', 'stackdepth', 'tid', 'timestamp', 'ucaller', 'uid',
  'uregs', 'ustackdepth', 'vtimestamp', 'walltimestamp', 'zonename',
]);

/** Actions, subroutines and aggregating functions. */
const FUNCTIONS = new Set([
  'trace', 'tracemem', 'printf', 'printa', 'print', 'stack', 'ustack', 'jstack', 'exit', 'speculation', 'speculate', 'commit',
  'discard', 'copyin', 'copyinstr', 'copyinto', 'copyout', 'copyoutstr', 'alloca', 'bcopy', 'basename', 'dirname', 'strlen',
  'strjoin', 'strchr', 'strrchr', 'strstr', 'strtok', 'substr', 'index', 'rindex', 'lltostr', 'toupper', 'tolower', 'htons',
  'htonl', 'htonll', 'ntohs', 'ntohl', 'ntohll', 'inet_ntoa', 'inet_ntop', 'mutex_owned', 'mutex_owner', 'mutex_type_adaptive',
  'rw_read_held', 'rw_write_held', 'rw_iswriter', 'progenyof', 'rand', 'getmajor', 'getminor', 'ddi_pathname', 'cleanpath',
  'msgsize', 'msgdsize', 'func', 'mod', 'sym', 'ufunc', 'umod', 'usym', 'uaddr', 'count', 'sum', 'avg', 'min', 'max', 'stddev',
  'quantize', 'lquantize', 'llquantize', 'clear', 'trunc', 'normalize', 'denormalize', 'setopt', 'system', 'freopen',
  'ftruncate', 'raise', 'stop', 'panic', 'breakpoint', 'chill', 'copyoutmbr', 'strtoll', 'tostr',
]);

interface DState {
  /** Inside a block comment. */
  comment: boolean;
  /** Braces open: a clause's body (probe descriptions stand only outside). */
  depth: number;
  /** After a probe description, before the clause's body: a '/' opens or closes the predicate. */
  beforeBody: boolean;
}

const parser: StreamParser<DState> = {
  name: 'd',
  startState: () => ({ comment: false, depth: 0, beforeBody: false }),
  token(stream, state) {
    if (state.comment) {
      if (stream.skipTo('*/')) {
        stream.pos += 2;
        state.comment = false;
      } else stream.skipToEnd();
      return 'comment';
    }
    if (stream.eatSpace()) return null;
    if (stream.match('/*')) {
      state.comment = true;
      return 'comment';
    }
    if (stream.match('//')) {
      stream.skipToEnd();
      return 'comment';
    }
    if (stream.sol() && stream.peek() === '#') {
      stream.skipToEnd();
      return 'meta';
    }
    // A probe description: provider:module:function:name (fields may be empty or globs), BEGIN, END, tick-1s ...
    if (state.depth === 0 && !state.beforeBody && stream.match(/^[\w$*?[\]!.`-]*(:[\w$*?[\]!.`-]*){1,3}/)) {
      state.beforeBody = true;
      return 'labelName';
    }
    if (state.depth === 0 && !state.beforeBody && stream.match(/^(BEGIN|END|ERROR|tick-\w+|profile-\w+)\b/)) {
      state.beforeBody = true;
      return 'labelName';
    }
    const c = stream.peek()!;
    if (c === '"' || c === "'") {
      stream.next();
      let escaped = false;
      let ch: string | void;
      while ((ch = stream.next()) !== undefined) {
        if (ch === c && !escaped) break;
        escaped = !escaped && ch === '\\';
      }
      return 'string';
    }
    if (stream.match(/^(0[xX][\da-fA-F]+|\d+(\.\d+)?([eE][+-]?\d+)?)[uUlL]*/)) return 'number';
    if (stream.match(/^@\w*/)) return 'variableName.special';
    if (stream.match(/^\$(\d+|\w+)/)) return 'variableName.special';
    if (stream.match(/^(self|this)->\w+/)) return 'variableName.local';
    if (stream.match(/^`?\w+(`\w+)*/)) {
      const word = stream.current();
      if (KEYWORDS.has(word)) return 'keyword';
      if (TYPES.has(word)) return 'typeName';
      if (VARIABLES.has(word)) return 'variableName.standard';
      if (FUNCTIONS.has(word) && stream.match(/^\s*\(/, false)) return 'variableName.function';
      return 'variableName';
    }
    stream.next();
    if (c === '{') {
      state.depth++;
      state.beforeBody = false;
      return 'brace';
    }
    if (c === '}') {
      state.depth = Math.max(0, state.depth - 1);
      return 'brace';
    }
    if (c === '/' && state.depth === 0) return 'meta';
    if (c === ',' && state.depth === 0) {
      // Another probe description of the same clause follows.
      state.beforeBody = false;
      return 'punctuation';
    }
    return /[-+*/%=<>!&|^~?:]/.test(c) ? 'operator' : 'punctuation';
  },
  languageData: { commentTokens: { line: '//', block: { open: '/*', close: '*/' } } },
};

export const dLanguage = StreamLanguage.define(parser);
