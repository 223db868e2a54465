/* Compound assignment reads its target first: it must already exist. */
BEGIN { total += 2; }
