/* A stack() key takes the action's argument rules. */
BEGIN
{
	@[stack(0)] = count();
}
