/*
 * cpubound: a CPU-bound workload for tests and benchmarks. Three kernels run
 * for N rounds (argument, default 20): FNV-1a hashing of generated data, a
 * sort of pseudo-random numbers, and a prime sieve. All arithmetic is in
 * fixed-width unsigned types so every ISA prints the same line.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define DATA_WORDS 4096
#define SIEVE_LIMIT 50000

static uint32_t lcg_state;

static uint32_t lcg_next(void)
{
	lcg_state = lcg_state * 1664525u + 1013904223u;
	return lcg_state;
}

static uint32_t fnv1a(const uint8_t *p, size_t n, uint32_t h)
{
	for (size_t i = 0; i < n; i++) {
		h ^= p[i];
		h *= 16777619u;
	}
	return h;
}

static void insertion_merge_sort(uint32_t *a, uint32_t *tmp, size_t n)
{
	if (n <= 16) {
		for (size_t i = 1; i < n; i++) {
			uint32_t v = a[i];
			size_t j = i;

			for (; j > 0 && a[j - 1] > v; j--)
				a[j] = a[j - 1];
			a[j] = v;
		}
		return;
	}
	size_t mid = n / 2, i = 0, j = mid, k = 0;

	insertion_merge_sort(a, tmp, mid);
	insertion_merge_sort(a + mid, tmp, n - mid);
	while (i < mid && j < n)
		tmp[k++] = a[i] <= a[j] ? a[i++] : a[j++];
	while (i < mid)
		tmp[k++] = a[i++];
	while (j < n)
		tmp[k++] = a[j++];
	for (k = 0; k < n; k++)
		a[k] = tmp[k];
}

static uint32_t count_primes(uint8_t *composite, uint32_t limit)
{
	uint32_t count = 0;

	for (uint32_t i = 0; i <= limit; i++)
		composite[i] = 0;
	for (uint32_t i = 2; i <= limit; i++) {
		if (composite[i])
			continue;
		count++;
		for (uint32_t j = i * 2; j <= limit; j += i)
			composite[j] = 1;
	}
	return count;
}

int main(int argc, char **argv)
{
	static uint32_t data[DATA_WORDS], tmp[DATA_WORDS];
	static uint8_t composite[SIEVE_LIMIT + 1];
	long rounds = argc > 1 ? atol(argv[1]) : 20;
	uint32_t hash = 2166136261u, checksum = 0, primes = 0;

	lcg_state = 12345;
	for (long r = 0; r < rounds; r++) {
		for (size_t i = 0; i < DATA_WORDS; i++)
			data[i] = lcg_next();
		hash = fnv1a((const uint8_t *)data, sizeof(data), hash);
		insertion_merge_sort(data, tmp, DATA_WORDS);
		for (size_t i = 0; i < DATA_WORDS; i += 64)
			checksum = (checksum << 5 | checksum >> 27) ^ data[i];
		primes = count_primes(composite, SIEVE_LIMIT - (uint32_t)(r % 7) * 1000);
		checksum += primes;
	}
	printf("cpubound rounds=%ld hash=%08x checksum=%08x primes=%u\n", rounds, hash,
	       checksum, primes);
	return 0;
}
