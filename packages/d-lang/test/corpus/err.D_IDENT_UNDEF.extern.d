extern int nosuchsym;
