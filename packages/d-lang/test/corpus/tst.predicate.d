syscall::read:entry /pid == 1 && execname == "sh"/ { self->ts = timestamp; }
