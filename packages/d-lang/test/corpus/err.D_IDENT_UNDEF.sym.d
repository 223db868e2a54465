BEGIN { trace(`nosuchsym); }
