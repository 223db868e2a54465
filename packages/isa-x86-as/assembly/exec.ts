// Interpreter: general-purpose integer instructions (placeholder set grows below).
export function exec_ud(): void {}
