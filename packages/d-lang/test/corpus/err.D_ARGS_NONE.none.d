/* @probes */
dtrace:::BEGIN { trace(args[0]); }
