/* @probes */
syscall::read:entry, syscall::open:entry { trace(args[0]); }
