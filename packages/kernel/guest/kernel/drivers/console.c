/*
 * /dev/console (char 5:1): output goes straight to the board console; input
 * arrives by the console interrupt into a ring buffer that readers sleep on.
 * No line discipline: the host terminal does echo and editing. A read
 * returns what is buffered (at least one byte), or 0 at end of input.
 */
#include <kernel/board.h>
#include <kernel/fs.h>
#include <kernel/irq.h>
#include <kernel/lib.h>
#include <kernel/mm.h>
#include <kernel/sched.h>

#define CONSOLE_MAJOR 5
#define CONSOLE_MINOR 1
#define INPUT_BUFFER_SIZE 4096

struct console_input {
	unsigned char buf[INPUT_BUFFER_SIZE];
	unsigned head, tail;     /* head: next write, tail: next read */
	bool eof;
};

static struct console_input console_input;
/* Readers asleep in console_read: the timer tick polls the device for them,
 * since the end of input raises no interrupt (BOARD.md 3.1, 4). */
static unsigned console_sleepers;

static unsigned console_input_count(void)
{
	return console_input.head - console_input.tail;
}

/* Drain the device into the ring buffer; called from the interrupt and
 * before a reader sleeps, so no byte is missed. */
static void console_poll_input(void)
{
	for (;;) {
		uint32_t status = board_read32(CONSOLE_BASE + CONSOLE_STATUS);

		if (status & CONSOLE_RX_READY) {
			uint32_t c = board_read32(CONSOLE_BASE + CONSOLE_RX);

			if (c == 0xFFFFFFFFu)
				break;
			if (console_input_count() < INPUT_BUFFER_SIZE)
				console_input.buf[console_input.head++ % INPUT_BUFFER_SIZE] = (unsigned char)c;
			continue;
		}
		if (status & CONSOLE_RX_EOF)
			console_input.eof = true;
		break;
	}
}

static void console_interrupt(unsigned irq)
{
	console_poll_input();
	if (console_input_count() > 0 || console_input.eof)
		wake_up(&console_input);
}

/* CPU 0's timer tick: input that ended while readers sleep wakes them. */
void console_tick(void)
{
	if (console_sleepers == 0)
		return;
	console_poll_input();
	if (console_input_count() > 0 || console_input.eof)
		wake_up(&console_input);
}

static unsigned console_poll(struct file *file)
{
	console_poll_input();
	return POLLOUT | POLLWRNORM |
	       (console_input_count() > 0 || console_input.eof ? POLLIN | POLLRDNORM : 0);
}

static ssize_t console_read(struct file *file, char *ubuf, size_t n, off_t *pos)
{
	size_t done = 0;

	if (n == 0)
		return 0;
	for (;;) {
		console_poll_input();
		if (console_input_count() > 0 || console_input.eof)
			break;
		if (file->f_flags & O_NONBLOCK)
			return -EAGAIN;
		console_sleepers++;
		sleep_on(&console_input);
		console_sleepers--;
		if (signal_pending(current))
			return -EINTR;
	}
	while (done < n && console_input_count() > 0) {
		char c = (char)console_input.buf[console_input.tail++ % INPUT_BUFFER_SIZE];

		if (copy_to_user(ubuf + done, &c, 1) < 0)
			return done ? (ssize_t)done : -EFAULT;
		done++;
		if (c == '\n')
			break;
	}
	return (ssize_t)done;
}

static ssize_t console_write_file(struct file *file, const char *ubuf, size_t n, off_t *pos)
{
	char chunk[256];
	size_t done = 0;

	while (done < n) {
		size_t len = MIN(n - done, sizeof(chunk));

		if (copy_from_user(chunk, ubuf + done, len) < 0)
			return done ? (ssize_t)done : -EFAULT;
		console_write(chunk, len);
		done += len;
	}
	return (ssize_t)done;
}

/* TCGETS succeeds (so isatty() is true) with a zeroed termios; TIOCGWINSZ
 * reports 80x24. The kernel's struct termios is 36 bytes (four tcflag_t,
 * c_line, c_cc[19]): libc's larger userspace termios is not what the system
 * call fills, and glibc passes a 36-byte buffer on its stack. */
#define KERNEL_TERMIOS_SIZE 36
static long console_ioctl(struct file *file, unsigned cmd, unsigned long arg)
{
	if (cmd == TCGETS) {
		return clear_user((void *)arg, KERNEL_TERMIOS_SIZE) < 0 ? -EFAULT : 0;
	}
	if (cmd == TIOCGWINSZ) {
		uint16_t ws[4] = { 24, 80, 0, 0 };

		return copy_to_user((void *)arg, ws, sizeof(ws)) < 0 ? -EFAULT : 0;
	}
	return -ENOTTY;
}

static const struct file_operations console_fops = {
	.read = console_read,
	.write = console_write_file,
	.ioctl = console_ioctl,
	.poll = console_poll,
};

void console_irq_init(void)
{
	register_chrdev(CONSOLE_MAJOR, "console", &console_fops);
	request_irq(IRQ_CONSOLE, console_interrupt, "console");
	board_write32(CONSOLE_BASE + CONSOLE_IRQ_ENABLE, 1);
	enable_irq(IRQ_CONSOLE);
}
