#pragma D option quiet

/* String subroutines with dtrace_dif_subr's edge cases (illumos dtrace.c). */
BEGIN
{
	printf("[%s][%s][%s][%s][%s][%s][%s]\n", substr("hello", 1, 3), substr("hello", -2), substr("hello", 10),
	    substr("hello", 0, -1), substr("hello", -10, 3), substr("hello", -7, 4), substr("hello", 1, -10));
	printf("[%d][%d][%d][%d][%d][%d][%d][%d]\n", index("hello", "l"), index("hello", "l", 3), index("hello", "z"),
	    index("hello", "", 9), rindex("hello", "l"), rindex("hello", "l", 2), rindex("hello", "", -3), rindex("hello", "l", -1));
	printf("[%s][%s][%s][%s][%s]\n", basename("/usr/lib/libc.so.1"), basename("/"), basename(""), basename("foo/"), dirname("a/b//"));
	printf("[%s][%s][%s]\n", cleanpath("/foo/../bar/./baz//x"), cleanpath("a/./b/../c"), strstr("hello", "ll"));
	printf("[%s][%s][%s][%s][%s][%s][%s]\n", cleanpath("/foo/.."), cleanpath("./a"), cleanpath("a/."), cleanpath("/a/./"),
	    cleanpath("..//a"), cleanpath("a/.."), cleanpath("/a/b/../../.."));
	printf("[%s][%s][%s][%s]\n", dirname("/usr/"), dirname("usr/"), dirname("//"), dirname("/a/b/"));
	exit(0);
}
