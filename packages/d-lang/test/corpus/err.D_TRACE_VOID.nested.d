/* An action inside trace() is a void value: trace's own check reports it. */
BEGIN { trace(trace(1)); }
