// Lane arithmetic of the SSE floating-point instructions (SDM vol. 1,
// 11.5 and table 4-7 for NaNs): a NaN operand propagates (the first
// source's if both are NaNs), quieted; an invalid operation gives the
// default NaN (the negative quiet NaN).
export const DEFAULT_NAN64: u64 = 0xfff8000000000000;
export const DEFAULT_NAN32: u32 = 0xffc00000;

// @ts-ignore: decorator
@inline export function isNaN64(b: u64): bool { return (b & 0x7fffffffffffffff) > 0x7ff0000000000000; }
// @ts-ignore: decorator
@inline export function isNaN32(b: u32): bool { return (b & 0x7fffffff) > 0x7f800000; }


/** One double lane; op: 0 add 1 sub 2 mul 3 div 4 min 5 max 6 sqrt (of b). */
export function laneF64(op: i32, a: u64, b: u64): u64 {
  let r: u64;
  if (op == 4 || op == 5) {
    const x = reinterpret<f64>(a), y = reinterpret<f64>(b);
    r = (op == 4 ? x < y : x > y) ? a : b; // NaN or equal: the source
  } else if (op == 6) {
    if (isNaN64(b)) r = b | 0x0008000000000000;
    else { r = reinterpret<u64>(Math.sqrt(reinterpret<f64>(b))); if (isNaN64(r)) r = DEFAULT_NAN64; }
  } else if (isNaN64(a)) r = a | 0x0008000000000000;
  else if (isNaN64(b)) r = b | 0x0008000000000000;
  else {
    const x = reinterpret<f64>(a), y = reinterpret<f64>(b);
    const v = op == 0 ? x + y : op == 1 ? x - y : op == 2 ? x * y : x / y;
    r = reinterpret<u64>(v);
    if (isNaN64(r)) r = DEFAULT_NAN64;
  }
  return r;
}
/** One float lane, as laneF64. */
export function laneF32(op: i32, a: u32, b: u32): u32 {
  let r: u32;
  if (op == 4 || op == 5) {
    const x = reinterpret<f32>(a), y = reinterpret<f32>(b);
    r = (op == 4 ? x < y : x > y) ? a : b;
  } else if (op == 6) {
    if (isNaN32(b)) r = b | 0x400000;
    else { r = reinterpret<u32>(Mathf.sqrt(reinterpret<f32>(b))); if (isNaN32(r)) r = DEFAULT_NAN32; }
  } else if (isNaN32(a)) r = a | 0x400000;
  else if (isNaN32(b)) r = b | 0x400000;
  else {
    const x = reinterpret<f32>(a), y = reinterpret<f32>(b);
    const v: f32 = op == 0 ? x + y : op == 1 ? x - y : op == 2 ? x * y : x / y;
    r = reinterpret<u32>(v);
    if (isNaN32(r)) r = DEFAULT_NAN32;
  }
  return r;
}
