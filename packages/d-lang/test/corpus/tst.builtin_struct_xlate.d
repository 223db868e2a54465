BEGIN { trace(curpsinfo->pr_lwp.pr_lwpid); trace(curpsinfo->pr_start.tv_sec); }
