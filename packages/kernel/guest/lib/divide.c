/*
 * Integer division helpers for ARMv7-A, which has no divide instruction in
 * the base architecture: the run-time functions the ARM EABI ("RTABI") says a
 * compiler may call. Linked into both the kernel and libc. Plain restoring
 * shift-and-subtract division: short, exact, and easy to trace.
 */
#include <stdint.h>

uint64_t __udivmoddi4(uint64_t num, uint64_t den, uint64_t *rem);
int64_t __divmoddi4(int64_t num, int64_t den, int64_t *rem);

/* Quotient and remainder of 64-bit unsigned division; den 0 gives 0 (the
 * EABI lets a division by zero return anything; the callers check first). */
uint64_t __udivmoddi4(uint64_t num, uint64_t den, uint64_t *rem)
{
	uint64_t quot = 0, r = 0;
	int bit;

	if (den == 0) {
		if (rem)
			*rem = 0;
		return 0;
	}
	if (den > num) {
		if (rem)
			*rem = num;
		return 0;
	}
	for (bit = 63 - __builtin_clzll(num); bit >= 0; bit--) {
		r = (r << 1) | ((num >> bit) & 1);
		if (r >= den) {
			r -= den;
			quot |= (uint64_t)1 << bit;
		}
	}
	if (rem)
		*rem = r;
	return quot;
}

int64_t __divmoddi4(int64_t num, int64_t den, int64_t *rem)
{
	int negq = (num < 0) != (den < 0);
	uint64_t un = num < 0 ? -(uint64_t)num : (uint64_t)num;
	uint64_t ud = den < 0 ? -(uint64_t)den : (uint64_t)den;
	uint64_t ur;
	uint64_t uq = __udivmoddi4(un, ud, &ur);

	if (rem)
		*rem = num < 0 ? -(int64_t)ur : (int64_t)ur;
	return negq ? -(int64_t)uq : (int64_t)uq;
}

/* 32-bit forms: the quotient in r0 and the remainder in r1, which is how a
 * 64-bit return value is passed, so a uint64_t return builds the pair. */
uint32_t __aeabi_uidiv(uint32_t num, uint32_t den);
uint64_t __aeabi_uidivmod(uint32_t num, uint32_t den);
int32_t __aeabi_idiv(int32_t num, int32_t den);
uint64_t __aeabi_idivmod(int32_t num, int32_t den);

static uint32_t udiv32(uint32_t num, uint32_t den, uint32_t *rem)
{
	uint32_t quot = 0, r = 0;
	int bit;

	if (den == 0) {
		*rem = 0;
		return 0;
	}
	if (den > num) {
		*rem = num;
		return 0;
	}
	for (bit = 31 - __builtin_clz(num); bit >= 0; bit--) {
		r = (r << 1) | ((num >> bit) & 1);
		if (r >= den) {
			r -= den;
			quot |= 1u << bit;
		}
	}
	*rem = r;
	return quot;
}

uint32_t __aeabi_uidiv(uint32_t num, uint32_t den)
{
	uint32_t rem;

	return udiv32(num, den, &rem);
}

uint64_t __aeabi_uidivmod(uint32_t num, uint32_t den)
{
	uint32_t rem;
	uint32_t quot = udiv32(num, den, &rem);

	return ((uint64_t)rem << 32) | quot;
}

int32_t __aeabi_idiv(int32_t num, int32_t den)
{
	uint32_t rem;
	uint32_t un = num < 0 ? -(uint32_t)num : (uint32_t)num;
	uint32_t ud = den < 0 ? -(uint32_t)den : (uint32_t)den;
	uint32_t q = udiv32(un, ud, &rem);

	return ((num < 0) != (den < 0)) ? -(int32_t)q : (int32_t)q;
}

uint64_t __aeabi_idivmod(int32_t num, int32_t den)
{
	uint32_t rem;
	uint32_t un = num < 0 ? -(uint32_t)num : (uint32_t)num;
	uint32_t ud = den < 0 ? -(uint32_t)den : (uint32_t)den;
	uint32_t q = udiv32(un, ud, &rem);
	int32_t sq = ((num < 0) != (den < 0)) ? -(int32_t)q : (int32_t)q;
	int32_t sr = num < 0 ? -(int32_t)rem : (int32_t)rem;

	return ((uint64_t)(uint32_t)sr << 32) | (uint32_t)sq;
}
