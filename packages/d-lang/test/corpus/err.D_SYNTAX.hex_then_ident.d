BEGIN { trace(0xfg); }
