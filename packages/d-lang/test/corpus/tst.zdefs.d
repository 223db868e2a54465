/* @probes */
#pragma D option zdefs
foo:::bar { }
