/*
 * The shell's USDT probes (sh.c), linked in by the guest build's -G step.
 * A command line is the command's words after expansion, joined by spaces.
 *
 *   command-start   an external command starts: its command line and the
 *                   pid of the process that runs it (the shell's child, or
 *                   the shell itself when the command is the last thing a
 *                   pipeline's process does)
 *   command-done    it ended: command line, pid, exit status (128+N when
 *                   killed by signal N, as $? says)
 *   builtin-start   a built-in command starts: command line, argc
 *   builtin-done    it returned: command line, status
 *   function-entry  a shell function is called: its name, argc
 *   function-return it returned: its name, status
 */
provider sh {
	probe command__start(char *, int);
	probe command__done(char *, int, int);
	probe builtin__start(char *, int);
	probe builtin__done(char *, int);
	probe function__entry(char *, int);
	probe function__return(char *, int);
};
