/*
 * A whole translation: xlate <T>(e) assigned to a variable (the struct,
 * built in scratch space), xlate <T *>(e) as a pointer, dereferenced, and
 * sizeof/offsetof/stringof on the translated type; trace() and print() of a
 * translated struct. Members the translator does not define stay zero.
 */
typedef struct in { int pid; long size; char name[8]; } in_t;
typedef struct out { int id; long bytes; string label; int unset; } out_t;

translator out_t < in_t *p > {
	id = p->pid * 2;
	bytes = p->size + 1;
	label = stringof(p->name);
};

BEGIN
{
	this->t = xlate <out_t> ((in_t *)arg0);
	this->p = xlate <out_t *> ((in_t *)arg0);
	self->keep = xlate <out_t> ((in_t *)arg1);
	trace(this->t);
	print(this->t);
	trace(xlate <out_t> ((in_t *)arg0));
	print(xlate <out_t> ((in_t *)arg1));
	trace(this->t.id + this->p->id + self->keep.unset);
	trace((*xlate <out_t *> ((in_t *)arg0)).bytes);
	trace(xlate <out_t> ((in_t *)arg0).label);
	trace(stringof(xlate <out_t *> ((in_t *)arg0)->label));
	trace(sizeof (xlate <out_t> ((in_t *)arg0)));
	trace(sizeof (out_t));
	trace(offsetof(out_t, bytes));
}
