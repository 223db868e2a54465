/* Outside a key, stack() is still an action, not a value. */
BEGIN
{
	x = stack();
}
