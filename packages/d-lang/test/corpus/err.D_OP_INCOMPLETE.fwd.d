struct fwd; BEGIN { trace(((struct fwd *)0)->a); }
