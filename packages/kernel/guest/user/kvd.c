/*
 * kvd: a small key-value server with a request lifecycle, for tracing with
 * its own USDT probes (provider kv, kvd_provider.d). It serves requests one
 * line at a time from standard input ("get KEY", "set KEY VALUE",
 * "del KEY"), answering each on standard output ("VALUE", "OK",
 * "NOT FOUND", "ERROR"), or with -n N serves N requests it makes itself
 * (a fixed mix over a few dozen keys) and prints only a summary.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kvd_provider.h"

static const char usage[] =
	"usage: kvd [-n REQUESTS]\n"
	"A key-value server: reads requests from standard input, one a line\n"
	"(get KEY | set KEY VALUE | del KEY), and answers each on standard output\n"
	"(the value, OK, NOT FOUND or ERROR). With -n it serves REQUESTS requests of\n"
	"its own making and prints 'kvd requests=N hits=H misses=M keys=K'.\n"
	"Its USDT provider kv: request-start, request-done, table-grow.\n";

enum { KV_DONE, KV_MISSING, KV_MALFORMED };

struct entry {
	struct entry *next;
	char *key;
	char *value;
};

static struct entry **buckets;
static unsigned nbuckets, nkeys;

static unsigned hash(const char *s)
{
	unsigned h = 2166136261u;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h;
}

static struct entry **slot(const char *key)
{
	struct entry **e = &buckets[hash(key) & (nbuckets - 1)];

	while (*e && strcmp((*e)->key, key) != 0)
		e = &(*e)->next;
	return e;
}

__attribute__((noinline)) static void grow(void)
{
	struct entry **old = buckets;
	unsigned n = nbuckets;

	nbuckets = n ? n * 2 : 8;
	buckets = calloc(nbuckets, sizeof(*buckets));
	for (unsigned i = 0; i < n; i++) {
		for (struct entry *e = old[i], *next; e; e = next) {
			struct entry **b = &buckets[hash(e->key) & (nbuckets - 1)];

			next = e->next;
			e->next = *b;
			*b = e;
		}
	}
	free(old);
	KV_TABLE_GROW((int)nbuckets);
}

static int kv_set(const char *key, const char *value)
{
	struct entry **e;

	if (nkeys + 1 > nbuckets)
		grow();
	e = slot(key);
	if (*e) {
		free((*e)->value);
	} else {
		*e = calloc(1, sizeof(**e));
		(*e)->key = strdup(key);
		nkeys++;
	}
	(*e)->value = strdup(value);
	return KV_DONE;
}

static int kv_del(const char *key)
{
	struct entry **e = slot(key), *gone = *e;

	if (!gone)
		return KV_MISSING;
	*e = gone->next;
	free(gone->key);
	free(gone->value);
	free(gone);
	nkeys--;
	return KV_DONE;
}

/* Serves one request line; `answer` gets the reply. Returns its status. */
static int serve(int id, char *line, const char **answer)
{
	char *op = strtok(line, " \t"), *key = strtok(NULL, " \t"), *value = strtok(NULL, "");
	int status = KV_MALFORMED;

	KV_REQUEST_START(id, op ? op : "", key ? key : "");
	*answer = "ERROR";
	if (op && key && strcmp(op, "get") == 0 && !value) {
		struct entry **e = nbuckets ? slot(key) : NULL;

		status = e && *e ? KV_DONE : KV_MISSING;
		*answer = status == KV_DONE ? (*e)->value : "NOT FOUND";
	} else if (op && key && strcmp(op, "set") == 0 && value) {
		status = kv_set(key, value);
		*answer = "OK";
	} else if (op && key && strcmp(op, "del") == 0 && !value) {
		status = nbuckets ? kv_del(key) : KV_MISSING;
		*answer = status == KV_DONE ? "OK" : "NOT FOUND";
	}
	KV_REQUEST_DONE(id, op ? op : "", key ? key : "", status);
	return status;
}

static int serve_input(void)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int id = 0;

	while ((n = getline(&line, &cap, stdin)) > 0) {
		const char *answer;

		if (line[n - 1] == '\n')
			line[n - 1] = '\0';
		serve(++id, line, &answer);
		printf("%s\n", answer);
		fflush(stdout);
	}
	free(line);
	return 0;
}

/* -n: a fixed mix of requests: mostly gets, a set every third, a del every seventh. */
static int serve_generated(int requests)
{
	int hits = 0, misses = 0;

	for (int id = 1; id <= requests; id++) {
		char line[64];
		const char *answer;
		int key = (id * 37) % 41;

		if (id % 3 == 0)
			snprintf(line, sizeof(line), "set k%d v%d", key, id);
		else if (id % 7 == 0)
			snprintf(line, sizeof(line), "del k%d", key);
		else
			snprintf(line, sizeof(line), "get k%d", key);
		if (serve(id, line, &answer) == KV_DONE)
			hits++;
		else
			misses++;
	}
	printf("kvd requests=%d hits=%d misses=%d keys=%u\n", requests, hits, misses, nkeys);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 2 && strcmp(argv[1], "--help") == 0) {
		fputs(usage, stdout);
		return 0;
	}
	if (argc == 3 && strcmp(argv[1], "-n") == 0 && atoi(argv[2]) > 0)
		return serve_generated(atoi(argv[2]));
	if (argc != 1) {
		fputs(usage, stderr);
		return 2;
	}
	return serve_input();
}
