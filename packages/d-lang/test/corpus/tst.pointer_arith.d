BEGIN { this->p = (int *)arg0; trace(*this->p); trace(this->p[2]); trace(*(this->p + 1)); trace(this->p - (int *)arg1); this->q = this->p + 3; this->q++; }
