BEGIN { trace(timestamp(1)); }
