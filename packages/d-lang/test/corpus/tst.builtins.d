BEGIN {
	trace(timestamp); trace(vtimestamp); trace(walltimestamp); trace(ipl); trace(epid); trace(id); trace(arg0); trace(arg9);
	trace(args[0]); trace(regs[0]); trace(uregs[0]); trace(stackdepth); trace(ustackdepth); trace(caller); trace(ucaller);
	trace(probeprov); trace(probemod); trace(probefunc); trace(probename); trace(pid); trace(ppid); trace(tid); trace(uid); trace(gid);
	trace(errno); trace(execname); trace(zonename); trace(curthread); trace(cpu); trace(cwd); trace(root);
	trace(curpsinfo->pr_pid); trace(curpsinfo->pr_psargs); trace(curlwpsinfo->pr_lwpid); trace(curcpu->cpu_id);
}
