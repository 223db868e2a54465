/* @probes */
sdt:::weird { trace(args[0]); }
