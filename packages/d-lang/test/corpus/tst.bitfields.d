struct bf { unsigned int a : 3; int b : 5; unsigned int c : 24; }; BEGIN { this->p = (struct bf *)arg0; trace(this->p->a); trace(this->p->b); }
