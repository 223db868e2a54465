/* @probes */
#pragma D depends_on provider nosuchprov
BEGIN {}
