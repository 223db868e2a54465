// Binary search over address-sorted lists, for the symbol lookups.

/** Index of the last element of `list` (sorted by `keyOf`) whose key is at most `key`, or -1. */
export function floorIndex<T>(list: readonly T[], key: bigint, keyOf: (item: T) => bigint): number {
  let lo = 0;
  let hi = list.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (keyOf(list[mid]!) <= key) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}
