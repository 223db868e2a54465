/*
 * Access to user memory from the kernel. Every copy translates the user
 * address page by page in the current address space (faulting pages in as a
 * user access would) and copies through the kernel's direct map, so a bad
 * user pointer gives -EFAULT and never a kernel fault.
 */
#include <kernel/arch.h>
#include <kernel/lib.h>
#include <kernel/mm.h>
#include <kernel/sched.h>

bool access_ok(const void *uaddr, size_t n)
{
	vaddr_t a = (vaddr_t)uaddr;

	return a < USER_TOP && n <= USER_TOP - a;
}

/* Walk [uaddr, uaddr+n) a page at a time, calling step on each piece. */
static long user_walk(vaddr_t uaddr, size_t n, bool write,
		      void (*step)(void *kaddr, size_t off, size_t len, void *ctx), void *ctx)
{
	size_t done = 0;

	if (!access_ok((void *)uaddr, n))
		return -EFAULT;
	while (done < n) {
		vaddr_t va = uaddr + done;
		size_t len = MIN(n - done, PAGE_SIZE - (va & (PAGE_SIZE - 1)));
		void *k = user_page_kaddr(current->mm, va, write);

		if (!k)
			return -EFAULT;
		step(k, done, len, ctx);
		done += len;
	}
	return 0;
}

static void step_from_user(void *kaddr, size_t off, size_t len, void *ctx)
{
	memcpy((char *)ctx + off, kaddr, len);
}

static void step_to_user(void *kaddr, size_t off, size_t len, void *ctx)
{
	memcpy(kaddr, (const char *)ctx + off, len);
}

static void step_clear_user(void *kaddr, size_t off, size_t len, void *ctx)
{
	memset(kaddr, 0, len);
}

long copy_from_user(void *dst, const void *usrc, size_t n)
{
	return user_walk((vaddr_t)usrc, n, false, step_from_user, dst);
}

long copy_to_user(void *udst, const void *src, size_t n)
{
	return user_walk((vaddr_t)udst, n, true, step_to_user, (void *)src);
}

long clear_user(void *udst, size_t n)
{
	return user_walk((vaddr_t)udst, n, true, step_clear_user, NULL);
}

/* Copy a NUL-terminated string of at most max-1 bytes; returns its length,
 * -ENAMETOOLONG if it does not fit, -EFAULT on a bad pointer. */
long strncpy_from_user(char *dst, const char *usrc, size_t max)
{
	for (size_t i = 0; i < max; i++) {
		vaddr_t va = (vaddr_t)usrc + i;
		const char *k;

		if (!access_ok((void *)va, 1))
			return -EFAULT;
		k = user_page_kaddr(current->mm, va, false);
		if (!k)
			return -EFAULT;
		dst[i] = *k;
		if (*k == '\0')
			return (long)i;
	}
	return -ENAMETOOLONG;
}
