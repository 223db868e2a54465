extern int nosuchsym;
extern int nosuchfunc(int, ...);
BEGIN { exit(0); }
