/* Reading an element of an associative array nothing has assigned. */
BEGIN { trace(counts["a"]); }
