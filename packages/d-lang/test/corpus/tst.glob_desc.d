syscall::*read*:entry, fbt:::, fbt::vfs_*:return { @[probefunc] = count(); }
