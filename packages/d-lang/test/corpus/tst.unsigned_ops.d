BEGIN { u = 10U; trace(u / 3U); trace(u % 3); trace(u >> 1); trace(u < 3); }
