/* print() prints a value by its D type, as dtrace_print. */
struct pair {
	int a;
	char c;
	uint64_t big;
	char name[8];
	short arr[3];
};

struct pair p;

BEGIN
{
	p.a = -2;
	p.c = 'x';
	p.big = 0;
	p.name[0] = 'h';
	p.name[1] = 'i';
	p.arr[1] = 5;
	print(42);
	print("text");
	print((char)'q');
	print(p);
}

BEGIN
{
	exit(0);
}
