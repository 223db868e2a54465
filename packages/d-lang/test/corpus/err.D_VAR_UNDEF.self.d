BEGIN { trace(self->nope); }
