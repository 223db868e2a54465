#pragma D option quiet

/* printf's integer conversions take their sign and width from the argument's D type (dt_printf.c). */
BEGIN
{
	printf("%d %d %d %d\n", (char)-1, (short)-1, -1, -1LL);
	printf("%d %d %d\n", (unsigned int)0xffffffff, (uint64_t)-1, (unsigned char)200);
	printf("%i %i %i\n", (char)-1, (short)-2, (uint32_t)0xfffffffd);
	printf("%u %u %x %x %X %o\n", -1, -1LL, -1, (char)-1, (short)-2, (short)-1);
	printf("%ld %lu %lx %hd %hx\n", (long)-5, (unsigned long)-1, (long)-1, (short)-3, (short)-3);
	printf("%c%c%c|%3c|%-3c|\n", 'A', 66, (short)67, 'D', 'E');
	printf("[%*d] [%-*d] [%.*d]\n", (char)-6, 7, 4, 8, (short)3, 9);
	@u[(unsigned int)0xffffffff] = count();
	@s[-2] = sum(-5);
	printa("%d %@d\n", @u);
	printa("%d %@d %@x\n", @s);
	exit(0);
}
