/* The provider of the usdt bench's program (loop.c). */
provider loop {
	probe iter(int);
};
