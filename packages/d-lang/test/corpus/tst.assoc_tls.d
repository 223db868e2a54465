BEGIN { self->m[pid, "k"] = 1; trace(self->m[pid, "k"]); }
