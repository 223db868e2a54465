/* @probes */
syscall::read:entry { trace(args[7]); }
