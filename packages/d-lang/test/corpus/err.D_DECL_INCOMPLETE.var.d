struct fwd; struct fwd x;
