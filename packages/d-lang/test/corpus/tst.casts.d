BEGIN { trace((char)300); trace((unsigned char)300); trace((short)arg0); trace((int)arg0); trace((uint64_t)arg0); trace((void *)arg0); trace((string)"x"); trace((long)&`x); }
