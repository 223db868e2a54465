/*
 * Translator selection by input type, as dt_xlator_lookup: the input type as
 * written (typedefs resolve to compatible types), then any translator whose
 * input accepts the operand as an argument, first declared first.
 */
typedef struct out { int which; } out_t;
typedef int myint_t;
struct foo { int x; };

translator out_t < long x > { which = 1; };
translator out_t < int x > { which = 2; };
translator out_t < void *p > { which = 3; };
translator out_t < char *s > { which = 4; };

BEGIN
{
	trace(xlate <out_t> ((int)arg0).which);
	trace(xlate <out_t> ((long)arg0).which);
	trace(xlate <out_t> ((myint_t)arg0).which);
	trace(xlate <out_t> ((short)arg0).which);
	trace(xlate <out_t> ((struct foo *)arg0).which);
	trace(xlate <out_t> ((char *)arg0).which);
	trace(xlate <out_t> ("abc").which);
	trace(xlate <out_t *> (arg0)->which);
}
