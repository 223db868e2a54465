BEGIN { trace(curpsinfo->pr_nothing); }
