syscall::read:entry,
syscall::write:entry
{
	@[probefunc] = count();
}
