BEGIN { self->name = execname; n[execname] = 1; this->s = strjoin(execname, "x"); }
