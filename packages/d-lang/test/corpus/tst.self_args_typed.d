/* @probes */ syscall::read:entry { trace(args[0]); trace(args[2]); }
