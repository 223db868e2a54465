/* stack(), ustack() and the sym() family may key an aggregation. */
BEGIN
{
	@stacks[stack()] = count();
	@deep[stack(5), ustack(3)] = count();
	@funcs[func(caller), mod(caller)] = sum(1);
	@syms[sym(arg0), probefunc] = max(2);
	@user[usym(arg1), ufunc(arg1), umod(arg1), uaddr(arg1)] = count();
	exit(0);
}
