long uint64_t x;
