BEGIN { this->a = (uint8_t)1; this->b = (int16_t)2; this->c = (uint32_t)3; this->d = (int64_t)4; this->e = (size_t)5; this->f = (uintptr_t)6; }
