struct fwd; struct s { struct fwd f; };
