/* NULL and the standard D libraries' names are known to every program. */
char *p;
BEGIN { p = NULL; s = "x"; s = NULL; q = (int *)NULL; x = q == NULL; }
BEGIN { e = ENOENT + EAGAIN + EWOULDBLOCK; sig = SIGKILL; f = DTRACEFLT_BADADDR; p = "str"; }
BEGIN { bcopy("abc", (char *)alloca(4), 4); }
