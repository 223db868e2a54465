tick-10ms /timestamp > 10/ { exit(0); }
