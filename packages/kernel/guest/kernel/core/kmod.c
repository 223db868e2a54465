/*
 * The guest side of module loading (BOARD.md section 8): the arena krtld
 * places modules in, the slot table it fills, and the calls of each
 * module's _init and _fini.
 */
#include <kernel/kmod.h>
#include <kernel/lib.h>
#include <kernel/sdt.h>

unsigned char kmod_arena[KMOD_ARENA_SIZE] __aligned(4096);
const unsigned long kmod_arena_size = KMOD_ARENA_SIZE;
volatile struct kmod_slot kmod_table[KMOD_SLOTS];
static bool kmod_ready;

typedef int (*kmod_entry_fn)(void);

static void kmod_run_init(volatile struct kmod_slot *slot)
{
	kmod_entry_fn init = (kmod_entry_fn)slot->ks_init;
	int status;

	DTRACE_PROBE2(kmod__init, const char *, (const char *)slot->ks_name, unsigned long, slot->ks_base);
	status = init ? init() : 0;
	slot->ks_status = status;
	slot->ks_state = status == 0 ? KMOD_RUNNING : KMOD_INIT_FAILED;
	printk("kmod: %s loaded at %#lx (%lu bytes): %s\n", (const char *)slot->ks_name,
	       slot->ks_base, slot->ks_size, status == 0 ? "ok" : "init failed");
}

static void kmod_run_fini(volatile struct kmod_slot *slot)
{
	kmod_entry_fn fini = (kmod_entry_fn)slot->ks_fini;
	int status;

	if (!fini) {
		slot->ks_status = -EBUSY;
		slot->ks_state = KMOD_RUNNING;
		return;
	}
	status = fini();
	slot->ks_status = status;
	slot->ks_state = status == 0 ? KMOD_UNLOADED : KMOD_RUNNING;
	DTRACE_PROBE2(kmod__fini, const char *, (const char *)slot->ks_name, int, status);
}

/* Called at boot once the file system exists, then on every tick of CPU 0. */
void kmod_poll(void)
{
	if (!kmod_ready)
		return;
	for (unsigned i = 0; i < KMOD_SLOTS; i++) {
		volatile struct kmod_slot *slot = &kmod_table[i];

		if (slot->ks_state == KMOD_LOADED)
			kmod_run_init(slot);
		else if (slot->ks_state == KMOD_UNLOAD_REQUESTED)
			kmod_run_fini(slot);
	}
}

void kmod_init(void)
{
	kmod_ready = true;
	kmod_poll();
}
