#pragma D option quiet
#pragma D option nspec=1

BEGIN
{
	self->spec = speculation();
	other = speculation();
}

BEGIN
/self->spec/
{
	speculate(self->spec);
	printf("speculative\n");
}

BEGIN
{
	printf("direct\n");
}

BEGIN
{
	commit(self->spec);
}

BEGIN
{
	exit(0);
}
