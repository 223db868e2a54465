/* A non-key action as an aggregation key is a void key. */
BEGIN { @[trace(0)] = count(); }
