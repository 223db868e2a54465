/* @probes */ syscall::read:entry, syscall::*:return { @[probefunc] = count(); }
