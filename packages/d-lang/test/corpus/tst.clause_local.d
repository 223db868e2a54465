BEGIN { this->x = 5; this->y = this->x * 2; trace(this->y); }
