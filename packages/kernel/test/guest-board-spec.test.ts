// BOARD.md is the contract between the machine and the guest kernel: check
// that the kernel's board.h agrees with it register by register, and that
// struct boot_info has the documented layout on both ISAs.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { GUEST_DIR, hasTool, tool } from './guest-support.js';

const board = readFileSync(join(GUEST_DIR, '..', 'BOARD.md'), 'utf8');
const header = readFileSync(join(GUEST_DIR, 'kernel', 'include', 'kernel', 'board.h'), 'utf8');

function defines(): Map<string, number> {
  const out = new Map<string, number>();
  for (const m of header.matchAll(/^#define\s+(\w+)\s+(0x[0-9A-Fa-f]+|\d+)u?l?\b/gm)) out.set(m[1]!, Number(m[2]!));
  return out;
}

/** Register tables of BOARD.md section 3: prefix -> (name -> offset). */
function documentedRegisters(): Map<string, Map<string, number>> {
  const prefixes: Record<string, string> = { Console: 'CONSOLE', Timer: 'TIMER', 'Interrupt controller': 'INTC', Power: 'POWER', 'CPU start (SMP)': 'SMP' };
  const result = new Map<string, Map<string, number>>();
  for (const section of board.split(/^### /m).slice(1)) {
    const title = /^3\.\d+ (.+?) — `0x/.exec(section)?.[1];
    const prefix = title ? prefixes[title] : undefined;
    if (!prefix) continue;
    const regs = new Map<string, number>();
    for (const m of section.matchAll(/^\| `0x([0-9A-F]{2})` \| `(\w+)` \|/gm)) regs.set(m[2]!, parseInt(m[1]!, 16));
    result.set(prefix, regs);
  }
  return result;
}

describe('BOARD.md and the kernel agree', () => {
  it('on every device register offset', () => {
    const defs = defines();
    const docs = documentedRegisters();
    expect([...docs.keys()].sort()).toEqual(['CONSOLE', 'INTC', 'POWER', 'SMP', 'TIMER']);
    let compared = 0;
    for (const [prefix, regs] of docs) {
      for (const [name, offset] of regs) {
        const macro = `${prefix}_${name}`;
        expect(defs.get(macro), `${macro} in board.h`).toBe(offset);
        compared++;
      }
    }
    expect(compared).toBe(29);
  });

  it('on device bases, IRQ lines and boot-info constants', () => {
    const defs = defines();
    const pages: [string, number][] = [['CONSOLE_BASE', 0x0000], ['TIMER_BASE', 0x1000], ['INTC_BASE', 0x2000], ['INITRD_WINDOW_BASE', 0x3000], ['POWER_BASE', 0x4000], ['SMP_BASE', 0x5000]];
    for (const [name, offset] of pages) {
      expect(defs.get(name), name).toBe(offset);
      expect(board).toContain(`\`0xF000_${offset.toString(16).toUpperCase().padStart(4, '0')}\``);
    }
    expect(defs.get('IRQ_TIMER')).toBe(0);
    expect(defs.get('IRQ_CONSOLE')).toBe(1);
    expect(defs.get('IRQ_IPI')).toBe(2);
    expect(board).toMatch(/\| `IRQ_TIMER`, `IRQ_CONSOLE`, `IRQ_IPI` \| `0, 1, 2` \|/);
    expect(defs.get('BOOTINFO_PHYS')).toBe(0x1000);
    expect(defs.get('BOOTINFO_MAGIC')).toBe(0x57444254);
    expect(board).toContain('| `BOOTINFO_MAGIC` | `0x5744_4254` |');
    expect(defs.get('BOARD_ID')).toBe(0x7764);
    expect(defs.get('DEVICE_PHYS_BASE')).toBe(0xf0000000);
  });

  it.skipIf(!hasTool('clang'))('on the boot-information block layout (both ISAs)', () => {
    const rows = [...board.matchAll(/^\| `0x([0-9A-F]{2})` \| (u32|u64) \| `(\w+)` \|/gm)].map((m) => ({ offset: parseInt(m[1]!, 16), field: m[3]! }));
    expect(rows.map((r) => r.field)).toEqual(['magic', 'version', 'board_id', 'cpu_count', 'ram_size', 'initrd_base', 'initrd_size', 'ns_per_insn', 'cmdline_len', 'device_base', 'epoch_seconds', 'kernel_end']);
    const dir = mkdtempSync(join(tmpdir(), 'guest-bootinfo-'));
    try {
      const src = join(dir, 'layout.c');
      const asserts = rows.map((r) => `_Static_assert(offsetof(struct boot_info, ${r.field}) == ${r.offset}, "${r.field}");`);
      writeFileSync(src, `#include <kernel/board.h>\n${asserts.join('\n')}\n_Static_assert(offsetof(struct boot_info, cmdline) == 0x100, "cmdline");\n_Static_assert(sizeof(struct boot_info) == 0x1000, "size");\n`);
      for (const target of [['--target=x86_64-unknown-none-elf'], ['--target=armv7a-none-eabi', '-mfloat-abi=soft']]) {
        tool('clang', [...target, '-ffreestanding', '-fsyntax-only', '-I', join(GUEST_DIR, 'kernel', 'include'), '-I', join(GUEST_DIR, 'include'), src]);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
