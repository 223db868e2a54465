BEGIN { trace(1) }
