syscall::$5:entry {}
