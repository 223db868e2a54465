entry { } read:entry { } syscall:read:entry {} ::: {}
