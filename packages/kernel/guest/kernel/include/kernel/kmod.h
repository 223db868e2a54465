/* Loadable kernel modules: the handoff with the host-side krtld described in
 * BOARD.md section 8. krtld writes modules into kmod_arena and fills a
 * kmod_table slot; the kernel runs their _init and _fini. */
#ifndef KERNEL_KMOD_H
#define KERNEL_KMOD_H
#include <kernel/types.h>

#define KMOD_ARENA_SIZE (1024 * 1024)
#define KMOD_SLOTS 16

enum kmod_state {
	KMOD_FREE = 0,
	KMOD_LOADED = 1,          /* written by krtld; _init not yet run */
	KMOD_RUNNING = 2,
	KMOD_UNLOAD_REQUESTED = 3,
	KMOD_UNLOADED = 4,
	KMOD_INIT_FAILED = 5,
};

struct kmod_slot {
	unsigned long ks_state;
	unsigned long ks_base;
	unsigned long ks_size;
	unsigned long ks_init;
	unsigned long ks_fini;
	long ks_status;
	char ks_name[32];
};

extern unsigned char kmod_arena[KMOD_ARENA_SIZE];
extern const unsigned long kmod_arena_size;
extern volatile struct kmod_slot kmod_table[KMOD_SLOTS];
void kmod_poll(void);
#endif
