typedef struct myinfo { int mi_pid; string mi_name; } myinfo_t;
translator myinfo_t < int p > { mi_pid = p; mi_name = "n"; };
BEGIN { trace(xlate <myinfo_t> (pid).mi_pid); trace(xlate <myinfo_t> (pid).mi_name); }
