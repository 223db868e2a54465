BEGIN {
	x = 10; y = 3;
	trace(x + y); trace(x - y); trace(x * y); trace(x / y); trace(x % y);
	trace(x << 2); trace(x >> 1); trace(x & y); trace(x | y); trace(x ^ y); trace(~x); trace(-x); trace(+x); trace(!x);
	trace(x == y); trace(x != y); trace(x < y); trace(x > y); trace(x <= y); trace(x >= y);
	trace(x && y); trace(x || y); trace(x ^^ y); trace(x ? 1 : 2);
	x += 1; x -= 1; x *= 2; x /= 2; x %= 7; x <<= 1; x >>= 1; x &= 0xff; x |= 1; x ^= 2;
	x++; x--; ++x; --x; trace((x, y));
}
