/* Native driver: runs workload(rounds) and prints the result and seconds. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
unsigned long workload(int rounds);
int main(int argc, char **argv) {
  int rounds = argc > 1 ? atoi(argv[1]) : 4;
  struct timespec a, b;
  clock_gettime(CLOCK_MONOTONIC, &a);
  unsigned long r = workload(rounds);
  clock_gettime(CLOCK_MONOTONIC, &b);
  long ns = (b.tv_sec - a.tv_sec) * 1000000000L + (b.tv_nsec - a.tv_nsec);
  printf("%lu %ld\n", r, ns);
  return 0;
}
