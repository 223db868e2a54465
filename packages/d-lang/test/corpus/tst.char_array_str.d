BEGIN { trace(curpsinfo->pr_fname); this->s = curpsinfo->pr_psargs; printf("%s\n", curpsinfo->pr_fname); }
