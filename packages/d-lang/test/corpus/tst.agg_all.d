BEGIN {
	@c = count(); @s = sum(arg0); @a = avg(arg0); @mn = min(arg0); @mx = max(arg0);
	@sd = stddev(arg0); @q = quantize(arg0); @l = lquantize(arg0, 0, 100, 10); @ll = llquantize(arg0, 10, 0, 6, 20);
	@k[execname, pid] = count();
}
