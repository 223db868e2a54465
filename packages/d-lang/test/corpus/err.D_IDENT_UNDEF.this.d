BEGIN { trace(this->nope); }
