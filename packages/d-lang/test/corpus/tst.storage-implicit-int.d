/* A declaration with only a storage class declares an int. */
self a, b;
this c;
BEGIN { trace(self->a); self->b = 2; this->c = self->b; trace(this->c); }
