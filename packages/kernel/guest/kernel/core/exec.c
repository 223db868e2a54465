/*
 * execve of static ELF executables (ET_EXEC, or ET_DYN without an
 * interpreter, loaded at a fixed base). The new address space is built
 * completely before the old one is given up, so a failing exec returns an
 * error to the caller. Each PT_LOAD segment gets private pages copied from
 * the file; the stack holds argc, argv, envp and the auxiliary vector as the
 * Linux ABI lays them out.
 */
#include <kernel/arch.h>
#include <kernel/elf.h>
#include <kernel/fs.h>
#include <kernel/lib.h>
#include <kernel/mm.h>
#include <kernel/sched.h>
#include <kernel/sdt.h>
#include <kernel/syscall.h>

#define MAX_ARG_STRINGS 256
#define MAX_ARG_BYTES (64 * 1024)
#define USER_STACK_SIZE (128 * 1024)
#define ET_DYN_BASE 0x400000ul
#define MAX_SEGMENTS 16

/* argv/envp copied into the kernel: strings back to back. */
struct exec_args {
	char *strings;
	size_t bytes;
	int argc, envc;
};

struct exec_image {
	uint64_t entry;
	uint64_t phdr_addr;
	unsigned phnum, phentsize;
	uint64_t load_bias;
	uint64_t end_of_data;
	unsigned nsegments;
	struct elf_segment segments[MAX_SEGMENTS];
};

static long copy_strings(struct exec_args *args, char *const *uvec, bool from_kernel, int *count)
{
	*count = 0;
	if (!uvec)
		return 0;
	for (;;) {
		char *ustr;
		long n;

		if (from_kernel) {
			ustr = uvec[*count];
		} else if (copy_from_user(&ustr, uvec + *count, sizeof(ustr)) < 0) {
			return -EFAULT;
		}
		if (!ustr)
			return 0;
		if (*count >= MAX_ARG_STRINGS)
			return -E2BIG;
		if (from_kernel) {
			n = (long)strlen(ustr);
			if (args->bytes + (size_t)n + 1 > MAX_ARG_BYTES)
				return -E2BIG;
			memcpy(args->strings + args->bytes, ustr, (size_t)n + 1);
		} else {
			n = strncpy_from_user(args->strings + args->bytes, ustr,
					      MAX_ARG_BYTES - args->bytes);
			if (n < 0)
				return n == -ENAMETOOLONG ? -E2BIG : n;
		}
		args->bytes += (size_t)n + 1;
		(*count)++;
	}
}

/* Read the ELF headers of a file into a class-independent image. */
static long parse_elf(const unsigned char *data, size_t size, struct exec_image *img)
{
	unsigned type, machine;

	if (size < 52 || memcmp(data, ELFMAG, 4) != 0)
		return -ENOEXEC;
	if (data[4] != arch_elf_class || data[5] != 1 /* little-endian */)
		return -ENOEXEC;
	memset(img, 0, sizeof(*img));
	if (arch_elf_class == ELFCLASS64) {
		const struct elf64_ehdr *eh = (const void *)data;

		if (size < sizeof(*eh))
			return -ENOEXEC;
		type = eh->e_type;
		machine = eh->e_machine;
		img->entry = eh->e_entry;
		img->phnum = eh->e_phnum;
		img->phentsize = eh->e_phentsize;
		if (eh->e_phentsize != sizeof(struct elf64_phdr) ||
		    eh->e_phoff + (uint64_t)eh->e_phnum * sizeof(struct elf64_phdr) > size)
			return -ENOEXEC;
		for (unsigned i = 0; i < eh->e_phnum; i++) {
			const struct elf64_phdr *ph = (const struct elf64_phdr *)(data + eh->e_phoff) + i;

			if (ph->p_type == PT_INTERP)
				return -ENOEXEC;    /* dynamic executables are not supported */
			if (ph->p_type != PT_LOAD)
				continue;
			if (img->nsegments == MAX_SEGMENTS)
				return -ENOEXEC;
			img->segments[img->nsegments++] = (struct elf_segment){
				ph->p_type, ph->p_flags, ph->p_offset, ph->p_vaddr, ph->p_filesz, ph->p_memsz };
			if (ph->p_offset <= eh->e_phoff && eh->e_phoff < ph->p_offset + ph->p_filesz)
				img->phdr_addr = ph->p_vaddr + (eh->e_phoff - ph->p_offset);
		}
	} else {
		const struct elf32_ehdr *eh = (const void *)data;

		type = eh->e_type;
		machine = eh->e_machine;
		img->entry = eh->e_entry;
		img->phnum = eh->e_phnum;
		img->phentsize = eh->e_phentsize;
		if (eh->e_phentsize != sizeof(struct elf32_phdr) ||
		    (uint64_t)eh->e_phoff + (uint64_t)eh->e_phnum * sizeof(struct elf32_phdr) > size)
			return -ENOEXEC;
		for (unsigned i = 0; i < eh->e_phnum; i++) {
			const struct elf32_phdr *ph = (const struct elf32_phdr *)(data + eh->e_phoff) + i;

			if (ph->p_type == PT_INTERP)
				return -ENOEXEC;
			if (ph->p_type != PT_LOAD)
				continue;
			if (img->nsegments == MAX_SEGMENTS)
				return -ENOEXEC;
			img->segments[img->nsegments++] = (struct elf_segment){
				ph->p_type, ph->p_flags, ph->p_offset, ph->p_vaddr, ph->p_filesz, ph->p_memsz };
			if (ph->p_offset <= eh->e_phoff && eh->e_phoff < ph->p_offset + ph->p_filesz)
				img->phdr_addr = ph->p_vaddr + (eh->e_phoff - ph->p_offset);
		}
	}
	if (machine != arch_elf_machine || (type != ET_EXEC && type != ET_DYN))
		return -ENOEXEC;
	if (img->nsegments == 0)
		return -ENOEXEC;
	if (type == ET_DYN) {
		img->load_bias = ET_DYN_BASE;
		img->entry += ET_DYN_BASE;
		img->phdr_addr += ET_DYN_BASE;
	}
	return 0;
}

/* Copy bytes into a not-yet-current address space through the direct map. */
static long copy_to_mm(struct mm_struct *mm, vaddr_t va, const void *src, size_t n)
{
	size_t done = 0;

	while (done < n) {
		size_t len = MIN(n - done, PAGE_SIZE - ((va + done) & (PAGE_SIZE - 1)));
		paddr_t pa;

		if (!arch_translate(mm, va + done, &pa, NULL)) {
			paddr_t page = alloc_page();

			if (!page || arch_map_page(mm, (va + done) & PAGE_MASK, page,
						   PTE_READ | PTE_WRITE | PTE_USER) < 0)
				return -ENOMEM;
			mm->rss_pages++;
			pa = page | ((va + done) & (PAGE_SIZE - 1));
		}
		memcpy(phys_to_virt(pa), (const char *)src + done, len);
		done += len;
	}
	return 0;
}

static unsigned segment_vm_flags(uint32_t p_flags)
{
	unsigned f = VM_READ;

	if (p_flags & PF_W)
		f |= VM_WRITE;
	if (p_flags & PF_X)
		f |= VM_EXEC;
	return f;
}

/* Map the segments, then fix each page's protection. */
static long load_segments(struct mm_struct *mm, const unsigned char *data, size_t size,
			  struct exec_image *img)
{
	for (unsigned i = 0; i < img->nsegments; i++) {
		struct elf_segment *s = &img->segments[i];
		vaddr_t vaddr = (vaddr_t)(s->vaddr + img->load_bias);
		vaddr_t start = vaddr & PAGE_MASK;
		vaddr_t end = PAGE_ALIGN(vaddr + (vaddr_t)s->memsz);
		unsigned flags = segment_vm_flags(s->flags);
		long err;

		if (s->filesz > s->memsz || s->offset + s->filesz > size || end > USER_TOP ||
		    end <= start)
			return -ENOEXEC;
		/* Segments may share a page at their boundary: merge into the
		 * existing VMA then. */
		if (find_vma(mm, start)) {
			struct vm_area_struct *v = find_vma(mm, start);

			v->vm_flags |= flags;
			if (end > v->vm_end) {
				err = insert_vma(mm, v->vm_end, end, flags);
				if (err < 0)
					return err;
			}
		} else {
			err = insert_vma(mm, start, end, flags);
			if (err < 0)
				return err;
		}
		for (vaddr_t va = start; va < end; va += PAGE_SIZE) {
			paddr_t pa;

			if (!arch_translate(mm, va, &pa, NULL)) {
				pa = alloc_page();
				if (!pa)
					return -ENOMEM;
				if (arch_map_page(mm, va, pa, PTE_READ | PTE_WRITE | PTE_USER) < 0) {
					free_page(pa);
					return -ENOMEM;
				}
				mm->rss_pages++;
			}
		}
		err = copy_to_mm(mm, vaddr, data + s->offset, (size_t)s->filesz);
		if (err < 0)
			return err;
		if (end > img->end_of_data)
			img->end_of_data = end;
	}
	/* Final protections from the merged VMAs. */
	for (struct vm_area_struct *v = mm->mmap; v; v = v->vm_next) {
		unsigned pte = PTE_USER | PTE_READ;

		if (v->vm_flags & VM_WRITE)
			pte |= PTE_WRITE;
		if (v->vm_flags & VM_EXEC)
			pte |= PTE_EXEC;
		for (vaddr_t va = v->vm_start; va < v->vm_end; va += PAGE_SIZE) {
			paddr_t pa;

			if (arch_translate(mm, va, &pa, NULL))
				arch_map_page(mm, va, pa & ~(paddr_t)(PAGE_SIZE - 1), pte);
		}
	}
	return 0;
}

/* Lay out the initial stack; returns the user stack pointer. */
static long setup_stack(struct mm_struct *mm, struct exec_args *args, struct exec_image *img,
			const char *path, unsigned long *sp_out)
{
	const size_t word = sizeof(unsigned long);
	vaddr_t top = USER_STACK_TOP;
	vaddr_t strings, random_bytes, execfn, sp;
	unsigned long auxv[2 * 16];
	int nauxv = 0;
	size_t nwords, path_len = strlen(path) + 1;
	unsigned long *frame;
	long err;
	static uint32_t random_seed = 0x9e3779b9u;
	uint8_t random[16];

	err = insert_vma(mm, top - USER_STACK_SIZE, top, VM_READ | VM_WRITE | VM_GROWSDOWN);
	if (err < 0)
		return err;
	mm->stack_top = top;
	strings = top - ALIGN_UP(args->bytes, 16);
	execfn = strings - ALIGN_UP(path_len, 16);
	random_bytes = execfn - 16;
	for (int i = 0; i < 16; i++) {
		random_seed = random_seed * 1664525u + 1013904223u;
		random[i] = (uint8_t)(random_seed >> 24);
	}
#define AUX(k, v) do { auxv[nauxv++] = (k); auxv[nauxv++] = (unsigned long)(v); } while (0)
	AUX(AT_PHDR, img->phdr_addr);
	AUX(AT_PHENT, img->phentsize);
	AUX(AT_PHNUM, img->phnum);
	AUX(AT_PAGESZ, PAGE_SIZE);
	AUX(AT_ENTRY, img->entry);
	AUX(AT_UID, 0);
	AUX(AT_EUID, 0);
	AUX(AT_GID, 0);
	AUX(AT_EGID, 0);
	AUX(AT_HWCAP, ARCH_ELF_HWCAP);
	AUX(AT_CLKTCK, 100);
	AUX(AT_SECURE, 0);
	AUX(AT_RANDOM, random_bytes);
	AUX(AT_EXECFN, execfn);
	AUX(AT_NULL, 0);
#undef AUX
	nwords = 1 + (size_t)args->argc + 1 + (size_t)args->envc + 1 + (size_t)nauxv;
	sp = (random_bytes - nwords * word) & ~(vaddr_t)15;
	frame = kmalloc(nwords * word);
	if (!frame)
		return -ENOMEM;
	{
		size_t w = 0, off = 0;

		frame[w++] = (unsigned long)args->argc;
		for (int i = 0; i < args->argc; i++) {
			frame[w++] = (unsigned long)(strings + off);
			off += strlen(args->strings + off) + 1;
		}
		frame[w++] = 0;
		for (int i = 0; i < args->envc; i++) {
			frame[w++] = (unsigned long)(strings + off);
			off += strlen(args->strings + off) + 1;
		}
		frame[w++] = 0;
		memcpy(&frame[w], auxv, (size_t)nauxv * word);
		w += (size_t)nauxv;
		BUG_ON(w != nwords);
	}
	err = copy_to_mm(mm, sp, frame, nwords * word);
	kfree(frame);
	if (err == 0)
		err = copy_to_mm(mm, strings, args->strings, args->bytes);
	if (err == 0)
		err = copy_to_mm(mm, execfn, path, path_len);
	if (err == 0)
		err = copy_to_mm(mm, random_bytes, random, sizeof(random));
	*sp_out = sp;
	return err;
}

static long exec_binary(const char *path, struct exec_args *args, struct pt_regs *regs)
{
	struct file *file;
	struct inode *inode;
	struct exec_image img;
	struct mm_struct *mm, *old_mm;
	unsigned long sp;
	int err;
	long r;

	file = filp_open(path, O_RDONLY, 0, &err);
	if (!file)
		return err;
	inode = file->f_inode;
	if (!S_ISREG(inode->i_mode) || !(inode->i_mode & 0111)) {
		fput(file);
		return -EACCES;
	}
	r = parse_elf((const unsigned char *)inode->i_data, (size_t)inode->i_size, &img);
	if (r < 0) {
		fput(file);
		return r;
	}
	mm = mm_alloc();
	if (!mm) {
		fput(file);
		return -ENOMEM;
	}
	r = load_segments(mm, (const unsigned char *)inode->i_data, (size_t)inode->i_size, &img);
	if (r == 0)
		r = setup_stack(mm, args, &img, path, &sp);
	fput(file);
	if (r < 0) {
		mmput(mm);
		return r;
	}
	mm->start_brk = mm->brk = (vaddr_t)img.end_of_data;

	/* Point of no return: switch to the new image. */
	old_mm = current->mm;
	current->mm = mm;
	arch_switch_mm(mm);
	if (old_mm)
		mmput(old_mm);
	files_close_on_exec(current->files);
	flush_signal_handlers(current);
	set_task_comm(current, path);
	arch_thread_setup_exec(regs, (unsigned long)img.entry, sp);
	wake_up(current);     /* a vfork parent may continue now */
	return 0;
}

static long do_execve_common(const char *path, char *const *argv, char *const *envp,
			     struct pt_regs *regs, bool from_kernel)
{
	struct exec_args args = { NULL, 0, 0, 0 };
	long r;

	args.strings = kmalloc(MAX_ARG_BYTES);
	if (!args.strings)
		return -ENOMEM;
	r = copy_strings(&args, argv, from_kernel, &args.argc);
	if (r == 0)
		r = copy_strings(&args, envp, from_kernel, &args.envc);
	if (r == 0) {
		DTRACE_PROC1(exec, const char *, path);
		r = exec_binary(path, &args, regs);
		if (r == 0)
			DTRACE_PROC(exec__success);
		else
			DTRACE_PROC1(exec__failure, int, (int)-r);
	}
	kfree(args.strings);
	return r;
}

long do_execve(const char *path, char *const *argv, char *const *envp, struct pt_regs *regs)
{
	return do_execve_common(path, argv, envp, regs, false);
}

/* exec from a kernel thread (starting init): becomes a user process. */
long kernel_execve(const char *path, const char *const *argv, const char *const *envp)
{
	current->is_kthread = false;
	return do_execve_common(path, (char *const *)argv, (char *const *)envp, current->regs, true);
}

long sys_execve(long upath, long argv, long envp, long a3, long a4, long a5)
{
	char path[PATH_MAX];
	long n = strncpy_from_user(path, (const char *)upath, sizeof(path));

	if (n < 0)
		return n;
	if (n == 0)
		return -ENOENT;
	return do_execve(path, (char *const *)argv, (char *const *)envp, current->regs);
}
