BEGIN { this->a[1] = 1; }
