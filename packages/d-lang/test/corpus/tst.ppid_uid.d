BEGIN /ppid != 0 && uid >= 0 && gid >= 0/ { trace(ppid); }
