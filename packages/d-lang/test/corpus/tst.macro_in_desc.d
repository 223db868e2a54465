syscall::$2:entry { trace($1); }
