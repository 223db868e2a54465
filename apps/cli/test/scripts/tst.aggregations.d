/* count, sum, min, max, avg, stddev, quantize, lquantize and llquantize over ten ticks */
#pragma D option quiet

int i;

profile:::tick-10ms
{
	i++;
	@c["count"] = count();
	@s["sum"] = sum(i);
	@mn["min"] = min(i);
	@mx["max"] = max(i);
	@av["avg"] = avg(i);
	@sd["stddev"] = stddev(i);
	@q = quantize(i);
	@l = lquantize(i, 0, 10, 2);
	@ll = llquantize(i, 2, 0, 4, 2);
}

profile:::tick-10ms
/i == 10/
{
	exit(0);
}
