/* clear() of an aggregating function's value, not of an aggregation. */
BEGIN { clear(count()); }
