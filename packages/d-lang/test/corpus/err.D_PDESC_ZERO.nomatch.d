/* @probes */
nosuch:::probe { }
