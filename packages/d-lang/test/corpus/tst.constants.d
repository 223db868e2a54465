BEGIN { trace(0x10); trace(010); trace(10U); trace(10L); trace(10UL); trace(10LL); trace(10ULL); trace('a'); trace('\n'); trace(0xffffffffffffffff); trace(-1); }
