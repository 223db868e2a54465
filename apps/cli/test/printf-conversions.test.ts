// %Y and %T print local time (ctime_r, localtime_r + strftime), so they are
// run in a child process with TZ set; %I and %P print their numeric forms.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { wdtrace } from './support.js';

const bin = fileURLToPath(new URL('../bin/wdtrace.js', import.meta.url));

function inZone(tz: string, program: string): { status: number | null; stdout: string; stderr: string } {
  return spawnSync(process.execPath, [bin, '-qn', program], { encoding: 'utf8', env: { ...process.env, TZ: tz } });
}

// 2023-11-14 22:13:20 UTC (standard time in the north) and 2023-06-29 00:53:20 UTC (summer time).
const TIMES = 'BEGIN { printf("%Y|%T\\n", 1700000000000000000, 1700000000000000000); printf("%Y|%T\\n", 1688000000000000000, 1688000000000000000); exit(0); }';

describe('printf %Y and %T in the local time zone', () => {
  it('follows TZ with its abbreviations, summer time included', () => {
    const la = inZone('America/Los_Angeles', TIMES);
    expect(la.stderr).toBe('');
    expect(la.stdout).toBe('2023 Nov 14 14:13:20|Tue, 14 Nov 2023 14:13:20 PST\n2023 Jun 28 17:53:20|Wed, 28 Jun 2023 17:53:20 PDT\n\n');
    const berlin = inZone('Europe/Berlin', TIMES);
    expect(berlin.stdout).toBe('2023 Nov 14 23:13:20|Tue, 14 Nov 2023 23:13:20 CET\n2023 Jun 29 02:53:20|Thu, 29 Jun 2023 02:53:20 CEST\n\n');
    const utc = inZone('UTC', TIMES);
    expect(utc.stdout).toBe('2023 Nov 14 22:13:20|Tue, 14 Nov 2023 22:13:20 UTC\n2023 Jun 29 00:53:20|Thu, 29 Jun 2023 00:53:20 UTC\n\n');
  });
  it('changes the date across midnight and prints a numeric abbreviation where the zone has no letters', () => {
    const tokyo = inZone('Asia/Tokyo', TIMES);
    expect(tokyo.stdout).toBe('2023 Nov 15 07:13:20|Wed, 15 Nov 2023 07:13:20 JST\n2023 Jun 29 09:53:20|Thu, 29 Jun 2023 09:53:20 JST\n\n');
    const kolkata = inZone('Asia/Kolkata', TIMES);
    expect(kolkata.stdout).toBe('2023 Nov 15 03:43:20|Wed, 15 Nov 2023 03:43:20 IST\n2023 Jun 29 06:23:20|Thu, 29 Jun 2023 06:23:20 IST\n\n');
    const saoPaulo = inZone('America/Sao_Paulo', TIMES);
    expect(saoPaulo.stdout).toBe('2023 Nov 14 19:13:20|Tue, 14 Nov 2023 19:13:20 -03\n2023 Jun 28 21:53:20|Wed, 28 Jun 2023 21:53:20 -03\n\n');
  });
});

describe('printf %I and %P', () => {
  it('print the address string and the port number, as illumos when no name is found', async () => {
    const r = await wdtrace('-qn', 'BEGIN { printf("[%I] [%I] [%P] [%6P]\\n", "10.0.0.1", "fe80::1", (uint16_t)443, (unsigned short)22); exit(0); }');
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('[10.0.0.1] [fe80::1] [443] [    22]\n\n');
  });
  it('check their argument types as pfcheck_str and pfcheck_type (uint16_t) do', async () => {
    const port = await wdtrace('-qn', 'BEGIN { printf("%P", 443); }');
    expect(port.status).toBe(1);
    expect(port.stderr).toContain('argument #2 is incompatible with conversion #1 prototype:\n\tconversion: %P\n\t prototype: uint16_t\n\t  argument: int');
    const addr = await wdtrace('-qn', 'BEGIN { printf("%I", 1); }');
    expect(addr.status).toBe(1);
    expect(addr.stderr).toContain('conversion: %I\n\t prototype: char [] or string (or use stringof)\n\t  argument: int');
  });
});
