/*
 * The key-value server's USDT probes (kvd.c), linked in by the guest
 * build's -G step.
 *
 *   request-start  a request was read: its number (from 1), operation
 *                  ("get", "set", "del"), key
 *   request-done   it was answered: number, operation, key, status
 *                  (0 done, 1 no such key, 2 malformed request)
 *   table-grow     the table doubled: the new number of buckets
 */
provider kv {
	probe request__start(int, char *, char *);
	probe request__done(int, char *, char *, int);
	probe table__grow(int);
};
