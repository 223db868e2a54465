struct s { int a; struct { int b; } in; }; BEGIN { this->p = (struct s *)arg0; trace((*this->p).a); trace(this->p->in.b); }
