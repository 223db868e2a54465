#pragma D option destructive
BEGIN { stop(); raise(9); system("echo %d", 1); chill(100); panic(); breakpoint(); freopen("/tmp/x"); freopen(""); copyout(arg0, arg1, 4); copyoutstr("x", arg1, 2); }
