// The x86-64 opcode table: the single source of truth for the decoder, the
// interpreter's dispatch, `describe` and the disassembler. scripts/gen-decoder.mjs
// turns it into assembly/generated/*.ts (decode tables + handler table) and
// src/generated/opcodes.ts (mnemonics, operands, classes for the host side).
//
// One line per opcode form (Intel SDM vol. 2, appendix A opcode maps):
//
//   MAP OPCODE [MATCH...] MNEMONIC [OPERANDS] [!CLASS...] [@HANDLER]
//
//   MAP       1 (one-byte), 0F, 0F38, 0F3A
//   OPCODE    hex byte; `50+r` covers eight opcodes (register in bits 2:0)
//   MATCH     /r (has ModRM)  /0../7 (ModRM.reg, implies ModRM)  mem|reg (ModRM.mod)
//             rm=N (ModRM.rm, mod=3)  NP|66|F3|F2 (mandatory prefix; NP = none)
//             W0|W1 (REX.W)  o16|o32|o64 (operand size)  d64 (default 64-bit
//             operand size)  lock (LOCK allowed)
//   MNEMONIC  AT&T mnemonic as llvm-objdump prints it; `?` is replaced by the
//             operation-size suffix (b/w/l/q)
//   OPERANDS  Intel order, comma separated, SDM appendix A.2 notation:
//             E* r/m, G* ModRM.reg, M memory only, I* immediate (Ibs: imm8
//             sign-extended), J* relative, O* moffs, Z* register in opcode,
//             AL/CL/DX/rAX fixed, S segment, C/D control/debug, V/W/U xmm,
//             P/Q/N mmx, 1 the constant one, R GPR in ModRM.rm (mod=3)
//   !CLASS    classes for providers: ret call jmp jcc loop int3 nop priv
//             push_rbp pop_rbp leave syscall string x87 sse ...
//   @HANDLER  interpreter handler (assembly/exec*.ts); absent = #UD
//
// Opcodes that the table lists no form for still decode to the right length
// from LENGTH_ONLY (ModRM / immediate layout of whole opcode ranges).

const lines = [];
const add = (s) => lines.push(s);

// ---- one-byte map: the eight ALU rows 00-3F ------------------------------
const alu = ['add', 'or', 'adc', 'sbb', 'and', 'sub', 'xor', 'cmp'];
alu.forEach((m, i) => {
  const b = i * 8;
  const h = `@alu`;
  const lk = m === 'cmp' ? '' : ' lock';
  add(`1 ${hex(b + 0)} /r${lk} ${m}? Eb,Gb ${h}`);
  add(`1 ${hex(b + 1)} /r${lk} ${m}? Ev,Gv ${h}`);
  add(`1 ${hex(b + 2)} /r ${m}? Gb,Eb ${h}`);
  add(`1 ${hex(b + 3)} /r ${m}? Gv,Ev ${h}`);
  add(`1 ${hex(b + 4)} ${m}? AL,Ib ${h}`);
  add(`1 ${hex(b + 5)} ${m}? rAX,Iz ${h}`);
});
add('1 50+r d64 push? Zv !push @push_Z');
add('1 58+r d64 pop? Zv !pop @pop_Z');
add('1 63 /r W1 movslq Gv,Ed @movsxd');
add('1 63 /r movsxd Gv,Ed @movsxd');
add('1 68 d64 push? Iz @push_I');
add('1 69 /r imul? Gv,Ev,Iz @imul3');
add('1 6A d64 push? Ibs @push_I');
add('1 6B /r imul? Gv,Ev,Ibs @imul3');
add('1 6C insb !string !priv');
add('1 6D insl !string !priv');
add('1 6E outsb !string !priv');
add('1 6F outsl !string !priv');
const cc = ['o', 'no', 'b', 'ae', 'e', 'ne', 'be', 'a', 's', 'ns', 'p', 'np', 'l', 'ge', 'le', 'g'];
cc.forEach((c, i) => add(`1 ${hex(0x70 + i)} j${c} Jb !jcc @jcc`));
const grp1 = alu;
grp1.forEach((m, i) => {
  const lk = m === 'cmp' ? '' : ' lock';
  add(`1 80 /${i}${lk} ${m}? Eb,Ib @alu`);
  add(`1 81 /${i}${lk} ${m}? Ev,Iz @alu`);
  add(`1 83 /${i}${lk} ${m}? Ev,Ibs @alu`);
});
add('1 84 /r test? Eb,Gb @alu');
add('1 85 /r test? Ev,Gv @alu');
add('1 86 /r lock xchg? Eb,Gb @xchg');
add('1 87 /r lock xchg? Ev,Gv @xchg');
add('1 88 /r mov? Eb,Gb @mov');
add('1 89 /r reg mov? Ev,Gv @mov_rr');
add('1 89 /r mem mov? Ev,Gv @mov_store');
add('1 8A /r mov? Gb,Eb @mov');
add('1 8B /r reg mov? Gv,Ev @mov_rr_load');
add('1 8B /r mem mov? Gv,Ev @mov_load');
add('1 8C /r mov? Ev,Sw @mov_from_sreg');
add('1 8D /r mem lea? Gv,M @lea');
add('1 8E /r movw Sw,Ew @mov_to_sreg');
add('1 8F /0 d64 pop? Ev !pop @pop_E');
add('1 90 F3 pause !nop @nop');
add('1 90 W1 rexb xchg? Zv,rAX @xchg_Z');
add('1 90 rexb xchg? Zv,rAX @xchg_Z');
add('1 90 nop !nop @nop');
add('1 90+r xchg? Zv,rAX @xchg_Z'); // 90 itself is nop unless REX.B (above)
add('1 98 o16 cbtw @cbw');
add('1 98 o32 cwtl @cbw');
add('1 98 o64 cltq @cbw');
add('1 99 o16 cwtd @cwd');
add('1 99 o32 cltd @cwd');
add('1 99 o64 cqto @cwd');
add('1 9B wait !x87 @fwait');
add('1 9C d64 pushf? @pushf');
add('1 9D d64 popf? @popf');
add('1 9E sahf @sahf');
add('1 9F lahf @lahf');
add('1 A0 movabs? AL,Ob @mov_moffs');
add('1 A1 movabs? rAX,Ov @mov_moffs');
add('1 A2 movabs? Ob,AL @mov_moffs');
add('1 A3 movabs? Ov,rAX @mov_moffs');
add('1 A4 movs? Yb,Xb !string @movs');
add('1 A5 movs? Yv,Xv !string @movs');
add('1 A6 cmps? Xb,Yb !string @cmps');
add('1 A7 cmps? Xv,Yv !string @cmps');
add('1 A8 test? AL,Ib @alu');
add('1 A9 test? rAX,Iz @alu');
add('1 AA stos? Yb,AL !string @stos');
add('1 AB stos? Yv,rAX !string @stos');
add('1 AC lods? AL,Xb !string @lods');
add('1 AD lods? rAX,Xv !string @lods');
add('1 AE scas? AL,Yb !string @scas');
add('1 AF scas? rAX,Yv !string @scas');
add('1 B0+r mov? Zb,Ib @mov_Z_I');
add('1 B8+r W1 movabs? Zv,Iv @mov_Z_I');
add('1 B8+r mov? Zv,Iv @mov_Z_I');
const grp2 = ['rol', 'ror', 'rcl', 'rcr', 'shl', 'shr', 'sal', 'sar'];
grp2.forEach((m, i) => {
  const mm = i === 6 ? 'shl' : m;
  add(`1 C0 /${i} ${mm}? Eb,Ib @shift`);
  add(`1 C1 /${i} ${mm}? Ev,Ib @shift`);
  add(`1 D0 /${i} ${mm}? Eb,1 @shift`);
  add(`1 D1 /${i} ${mm}? Ev,1 @shift`);
  add(`1 D2 /${i} ${mm}? Eb,CL @shift`);
  add(`1 D3 /${i} ${mm}? Ev,CL @shift`);
});
add('1 C2 d64 retq Iw !ret @ret');
add('1 C3 d64 retq !ret @ret');
add('1 C6 /7 reg rm=0 xabort Ib');
add('1 C6 /0 mov? Eb,Ib @mov');
add('1 C7 /7 reg rm=0 xbegin Jz');
add('1 C7 /0 mov? Ev,Iz @mov');
add('1 C8 d64 enterq Iw,Ib @enter');
add('1 C9 d64 leave !leave @leave');
add('1 CA o64 lretq Iw !ret @lret');
add('1 CA lretl Iw !ret');
add('1 CB o64 lretq !ret @lret');
add('1 CB lretl !ret');
add('1 CC int3 !int3 @int3');
add('1 CD int Ib @int');
add('1 CF o64 iretq !priv @iret');
add('1 CF o32 iretl !priv @iret');
add('1 CF o16 iretw !priv @iret');
add('1 D7 xlatb @xlat');
add('1 E0 loopne Jb !loop @loop');
add('1 E1 loope Jb !loop @loop');
add('1 E2 loop Jb !loop @loop');
add('1 E3 jrcxz Jb !loop @loop');
add('1 E4 inb Ib,AL !priv');
add('1 E5 inl Ib,eAX !priv');
add('1 E6 outb AL,Ib !priv');
add('1 E7 outl eAX,Ib !priv');
add('1 E8 d64 callq Jz !call @call_J');
add('1 E9 jmp Jz !jmp @jmp_J');
add('1 EB jmp Jb !jmp @jmp_J');
add('1 EC inb DX,AL !priv');
add('1 ED inl DX,eAX !priv');
add('1 EE outb AL,DX !priv');
add('1 EF outl eAX,DX !priv');
add('1 F1 int1');
add('1 F4 hlt !priv @hlt');
add('1 F5 cmc @cmc');
const grp3 = ['test', 'test', 'not', 'neg', 'mul', 'imul', 'div', 'idiv'];
grp3.forEach((m, i) => {
  const ops = i < 2 ? ',Ib' : '';
  const opv = i < 2 ? ',Iz' : '';
  const lk = i === 2 || i === 3 ? ' lock' : '';
  const h = i < 2 ? '@alu' : i < 4 ? '@unary' : '@muldiv';
  add(`1 F6 /${i}${lk} ${m}? Eb${ops} ${h}`);
  add(`1 F7 /${i}${lk} ${m}? Ev${opv} ${h}`);
});
add('1 F8 clc @clc');
add('1 F9 stc @stc');
add('1 FA cli !priv @cli');
add('1 FB sti !priv @sti');
add('1 FC cld @cld');
add('1 FD std @std');
add('1 FE /0 lock inc? Eb @unary');
add('1 FE /1 lock dec? Eb @unary');
add('1 FF /0 lock inc? Ev @unary');
add('1 FF /1 lock dec? Ev @unary');
add('1 FF /2 d64 callq *Ev !call !indirect @call_E');
add('1 FF /3 mem lcalll *M !call !indirect');
add('1 FF /4 d64 jmpq *Ev !jmp !indirect @jmp_E');
add('1 FF /5 mem ljmpl *M !jmp !indirect');
add('1 FF /6 d64 push? Ev !push @push_E');

// ---- x87 (D8-DF): memory forms print with size-typed mnemonics ------------
const x87mem = {
  D8: ['fadds', 'fmuls', 'fcoms', 'fcomps', 'fsubs', 'fsubrs', 'fdivs', 'fdivrs'],
  D9: ['flds', null, 'fsts', 'fstps', 'fldenv', 'fldcw', 'fnstenv', 'fnstcw'],
  DA: ['fiaddl', 'fimull', 'ficoml', 'ficompl', 'fisubl', 'fisubrl', 'fidivl', 'fidivrl'],
  DB: ['fildl', 'fisttpl', 'fistl', 'fistpl', null, 'fldt', null, 'fstpt'],
  DC: ['faddl', 'fmull', 'fcoml', 'fcompl', 'fsubl', 'fsubrl', 'fdivl', 'fdivrl'],
  DD: ['fldl', 'fisttpll', 'fstl', 'fstpl', 'frstor', null, 'fnsave', 'fnstsw'],
  DE: ['fiadds', 'fimuls', 'ficoms', 'ficomps', 'fisubs', 'fisubrs', 'fidivs', 'fidivrs'],
  DF: ['filds', 'fisttps', 'fists', 'fistps', 'fbld', 'fildll', 'fbstp', 'fistpll'],
};
for (const [op, names] of Object.entries(x87mem)) {
  names.forEach((m, i) => { if (m) add(`1 ${op} /${i} mem ${m} M !x87 @x87`); });
}
const x87reg = {
  D8: ['fadd', 'fmul', 'fcom', 'fcomp', 'fsub', 'fsubr', 'fdiv', 'fdivr'],
  D9: ['fld', 'fxch', null, null, null, null, null, null],
  DA: ['fcmovb', 'fcmove', 'fcmovbe', 'fcmovu', null, null, null, null],
  DB: ['fcmovnb', 'fcmovne', 'fcmovnbe', 'fcmovnu', null, 'fucomi', 'fcomi', null],
  DC: ['fadd', 'fmul', 'fcom', 'fcomp', 'fsub', 'fsubr', 'fdiv', 'fdivr'],
  DD: ['ffree', null, 'fst', 'fstp', 'fucom', 'fucomp', null, null],
  DE: ['faddp', 'fmulp', null, null, 'fsubp', 'fsubrp', 'fdivp', 'fdivrp'],
  DF: [null, null, null, null, null, 'fucompi', 'fcompi', null],
};
for (const [op, names] of Object.entries(x87reg)) {
  names.forEach((m, i) => { if (m) add(`1 ${op} /${i} reg ${m} ST !x87 @x87`); });
}
const d9 = { E0: 'fchs', E1: 'fabs', E4: 'ftst', E5: 'fxam', E8: 'fld1', E9: 'fldl2t', EA: 'fldl2e', EB: 'fldpi', EC: 'fldlg2', ED: 'fldln2', EE: 'fldz', F0: 'f2xm1', F1: 'fyl2x', F2: 'fptan', F3: 'fpatan', F4: 'fxtract', F5: 'fprem1', F6: 'fdecstp', F7: 'fincstp', F8: 'fprem', F9: 'fyl2xp1', FA: 'fsqrt', FB: 'fsincos', FC: 'frndint', FD: 'fscale', FE: 'fsin', FF: 'fcos', D0: 'fnop' };
for (const [b, m] of Object.entries(d9)) {
  const v = parseInt(b, 16);
  add(`1 D9 /${(v >> 3) & 7} reg rm=${v & 7} ${m} !x87 @x87`);
}
add('1 DB /4 reg rm=2 fnclex !x87 @x87');
add('1 DB /4 reg rm=3 fninit !x87 @x87');
add('1 DF /4 reg rm=0 fnstsw AX !x87 @x87');
add('1 DE /3 reg rm=1 fcompp !x87 @x87');
add('1 DA /5 reg rm=1 fucompp !x87 @x87');

// ---- two-byte map 0F -------------------------------------------------------
['sldt', 'str', 'lldt', 'ltr', 'verr', 'verw'].forEach((m, i) => add(`0F 00 /${i} ${m} Ew !priv${m === 'ltr' ? ' @ltr' : m === 'str' ? ' @str' : ''}`));
add('0F 01 /7 reg rm=0 swapgs !priv @swapgs');
add('0F 01 /7 reg rm=1 rdtscp @rdtscp');
add('0F 01 /2 reg rm=0 xgetbv');
add('0F 01 /2 reg rm=1 xsetbv !priv');
add('0F 01 /2 reg rm=5 xend');
add('0F 01 /2 reg rm=6 xtest');
add('0F 01 /1 reg rm=0 monitor !priv');
add('0F 01 /1 reg rm=1 mwait !priv');
add('0F 01 /1 reg rm=2 clac !priv');
add('0F 01 /1 reg rm=3 stac !priv');
add('0F 01 /5 reg rm=6 rdpkru');
add('0F 01 /5 reg rm=7 wrpkru');
['sgdtq', 'sidtq', 'lgdtq', 'lidtq'].forEach((m, i) => add(`0F 01 /${i} mem ${m} M !priv${i >= 2 ? ' @lgdt' : ''}`));
add('0F 01 /4 smsww Ew');
add('0F 01 /6 lmsww Ew !priv');
add('0F 01 /7 mem invlpg M !priv @invlpg');
add('0F 05 syscall !syscall @syscall');
add('0F 06 clts !priv @clts');
add('0F 07 o64 sysretq !priv @sysret');
add('0F 07 sysretl !priv @sysret');
add('0F 08 invd !priv');
add('0F 09 wbinvd !priv @nop_priv');
add('0F 0B ud2 @ud');
add('0F 0D /1 prefetchw M @nop');
add('0F 0D /r prefetch M @nop');
['prefetchnta', 'prefetcht0', 'prefetcht1', 'prefetcht2'].forEach((m, i) => add(`0F 18 /${i} mem ${m} M @nop`));
add('0F 1E F3 reg /7 rm=2 endbr64 !nop @nop');
add('0F 1E F3 reg /7 rm=3 endbr32 !nop @nop');
for (const op of ['18', '19', '1A', '1B', '1C', '1D', '1E']) add(`0F ${op} /r nop? Ev !nop @nop`);
add('0F 1F /r nop? Ev !nop @nop');
add('0F 20 /r movq Rq,Cd !priv @mov_from_cr');
add('0F 21 /r movq Rq,Dd !priv');
add('0F 22 /r movq Cd,Rq !priv @mov_to_cr');
add('0F 23 /r movq Dd,Rq !priv');
add('0F 30 wrmsr !priv @wrmsr');
add('0F 31 rdtsc @rdtsc');
add('0F 32 rdmsr !priv @rdmsr');
add('0F 33 rdpmc');
add('0F 34 sysenter');
add('0F 35 sysexit !priv');
cc.forEach((c, i) => add(`0F ${hex(0x40 + i)} /r cmov${c}? Gv,Ev @cmov`));
cc.forEach((c, i) => add(`0F ${hex(0x80 + i)} j${c} Jz !jcc @jcc`));
cc.forEach((c, i) => add(`0F ${hex(0x90 + i)} /r set${c} Eb @setcc`));
add('0F A0 d64 pushq FS');
add('0F A1 d64 popq FS');
add('0F A2 cpuid @cpuid');
add('0F A3 /r bt? Ev,Gv @bt');
add('0F A4 /r shld? Ev,Gv,Ib @shld');
add('0F A5 /r shld? Ev,Gv,CL @shld');
add('0F A8 d64 pushq GS');
add('0F A9 d64 popq GS');
add('0F AB /r lock bts? Ev,Gv @bt');
add('0F AC /r shrd? Ev,Gv,Ib @shld');
add('0F AD /r shrd? Ev,Gv,CL @shld');
add('0F AE /5 reg lfence @nop');
add('0F AE /6 reg mfence @nop');
add('0F AE /7 reg sfence @nop');
add('0F AE /0 reg F3 rdfsbase? Ry');
add('0F AE /1 reg F3 rdgsbase? Ry');
add('0F AE /2 reg F3 wrfsbase? Ry');
add('0F AE /3 reg F3 wrgsbase? Ry');
['fxsave', 'fxrstor', 'ldmxcsr', 'stmxcsr', 'xsave', 'xrstor', 'xsaveopt', 'clflush'].forEach((m, i) =>
  add(`0F AE /${i} mem ${m} M${i === 0 ? ' @fxsave' : i === 1 ? ' @fxrstor' : i === 2 ? ' @ldmxcsr' : i === 3 ? ' @stmxcsr' : i === 7 ? ' @nop' : ''}`));
add('0F AF /r imul? Gv,Ev @imul2');
add('0F B0 /r lock cmpxchg? Eb,Gb @cmpxchg');
add('0F B1 /r lock cmpxchg? Ev,Gv @cmpxchg');
add('0F B3 /r lock btr? Ev,Gv @bt');
add('0F B6 /r movzb? Gv,Eb @movzx');
add('0F B7 /r movzw? Gv,Ew @movzx');
add('0F B8 F3 /r popcnt? Gv,Ev @popcnt');
add('0F B9 /r ud1? Gv,Ev @ud');
['bt', 'bts', 'btr', 'btc'].forEach((m, i) => add(`0F BA /${i + 4}${i ? ' lock' : ''} ${m}? Ev,Ib @bt`));
add('0F BB /r lock btc? Ev,Gv @bt');
add('0F BC F3 /r tzcnt? Gv,Ev @tzcnt');
add('0F BC /r bsf? Gv,Ev @bsf');
add('0F BD F3 /r lzcnt? Gv,Ev @lzcnt');
add('0F BD /r bsr? Gv,Ev @bsr');
add('0F BE /r movsb? Gv,Eb @movsx');
add('0F BF /r movsw? Gv,Ew @movsx');
add('0F C0 /r lock xadd? Eb,Gb @xadd');
add('0F C1 /r lock xadd? Ev,Gv @xadd');
add('0F C3 mem /r movnti? My,Gy @mov');
add('0F C7 /1 mem W1 lock cmpxchg16b M @cmpxchg16b');
add('0F C7 /1 mem lock cmpxchg8b M @cmpxchg8b');
add('0F C7 /6 reg rdrand? Rv');
add('0F C7 /7 reg rdseed? Rv');
add('0F C8+r bswap? Zv @bswap');
add('0F FF /r ud0? Gv,Ev @ud');
add('0F38 F0 /r mem NP movbe? Gv,M @movbe');
add('0F38 F1 /r mem NP movbe? M,Gv @movbe');

// ---- SSE / SSE2 / MMX (0F map): [NP, 66, F3, F2] mnemonics -----------------
// An entry `name:operands:handler`; operands in Intel order.
const sse = {
  10: ['movups:V,W:movups', 'movupd:V,W:movups', 'movss:V,W:movss_load', 'movsd:V,W:movsd_load'],
  11: ['movups:W,V:movups_st', 'movupd:W,V:movups_st', 'movss:W,V:movss_store', 'movsd:W,V:movsd_store'],
  12: ['movlps:V,W:movlpd_load', 'movlpd:V,M:movlpd_load', 'movsldup:V,W:movsldup', 'movddup:V,W:movddup'],
  13: ['movlps:M,V:movlpd_store', 'movlpd:M,V:movlpd_store'],
  14: ['unpcklps:V,W:unpcklps', 'unpcklpd:V,W:punpcklqdq'],
  15: ['unpckhps:V,W:unpckhps', 'unpckhpd:V,W:punpckhqdq'],
  16: ['movhps:V,W:movhpd_load', 'movhpd:V,M:movhpd_load', 'movshdup:V,W:movshdup'],
  17: ['movhps:M,V:movhpd_store', 'movhpd:M,V:movhpd_store'],
  28: ['movaps:V,W:movaps', 'movapd:V,W:movaps'],
  29: ['movaps:W,V:movaps_st', 'movapd:W,V:movaps_st'],
  '2A': ['cvtpi2ps:V,Q:cvtpi2ps', 'cvtpi2pd:V,Q:cvtpi2pd', 'cvtsi2ss?:V,Ey:cvtsi2ss', 'cvtsi2sd?:V,Ey:cvtsi2sd'],
  '2B': ['movntps:M,V:movaps_st', 'movntpd:M,V:movaps_st'],
  '2C': ['cvttps2pi:P,W:cvttps2pi', 'cvttpd2pi:P,W:cvttpd2pi', 'cvttss2si:Gy,W:cvttss2si', 'cvttsd2si:Gy,W:cvttsd2si'],
  '2D': ['cvtps2pi:P,W:cvtps2pi', 'cvtpd2pi:P,W:cvtpd2pi', 'cvtss2si:Gy,W:cvtss2si', 'cvtsd2si:Gy,W:cvtsd2si'],
  '2E': ['ucomiss:V,W:ucomiss', 'ucomisd:V,W:ucomisd'],
  '2F': ['comiss:V,W:ucomiss', 'comisd:V,W:ucomisd'],
  50: ['movmskps:Gd,U:movmskps', 'movmskpd:Gd,U:movmskpd'],
  51: ['sqrtps:V,W:sqrtps', 'sqrtpd:V,W:sqrtpd', 'sqrtss:V,W:sqrtss', 'sqrtsd:V,W:sqrtsd'],
  52: ['rsqrtps:V,W:rsqrtps', null, 'rsqrtss:V,W:rsqrtss'],
  53: ['rcpps:V,W:rcpps', null, 'rcpss:V,W:rcpss'],
  54: ['andps:V,W:pand', 'andpd:V,W:pand'],
  55: ['andnps:V,W:pandn', 'andnpd:V,W:pandn'],
  56: ['orps:V,W:por', 'orpd:V,W:por'],
  57: ['xorps:V,W:pxor', 'xorpd:V,W:pxor'],
  58: ['addps:V,W:addps', 'addpd:V,W:addpd', 'addss:V,W:addss', 'addsd:V,W:addsd'],
  59: ['mulps:V,W:mulps', 'mulpd:V,W:mulpd', 'mulss:V,W:mulss', 'mulsd:V,W:mulsd'],
  '5A': ['cvtps2pd:V,W:cvtps2pd', 'cvtpd2ps:V,W:cvtpd2ps', 'cvtss2sd:V,W:cvtss2sd', 'cvtsd2ss:V,W:cvtsd2ss'],
  '5B': ['cvtdq2ps:V,W:cvtdq2ps', 'cvtps2dq:V,W:cvtps2dq', 'cvttps2dq:V,W:cvttps2dq'],
  '5C': ['subps:V,W:subps', 'subpd:V,W:subpd', 'subss:V,W:subss', 'subsd:V,W:subsd'],
  '5D': ['minps:V,W:minps', 'minpd:V,W:minpd', 'minss:V,W:minss', 'minsd:V,W:minsd'],
  '5E': ['divps:V,W:divps', 'divpd:V,W:divpd', 'divss:V,W:divss', 'divsd:V,W:divsd'],
  '5F': ['maxps:V,W:maxps', 'maxpd:V,W:maxpd', 'maxss:V,W:maxss', 'maxsd:V,W:maxsd'],
  60: ['punpcklbw:P,Q', 'punpcklbw:V,W:punpcklbw'],
  61: ['punpcklwd:P,Q', 'punpcklwd:V,W:punpcklwd'],
  62: ['punpckldq:P,Q', 'punpckldq:V,W:punpckldq'],
  63: ['packsswb:P,Q', 'packsswb:V,W:packsswb'],
  64: ['pcmpgtb:P,Q', 'pcmpgtb:V,W:pcmpgtb'],
  65: ['pcmpgtw:P,Q', 'pcmpgtw:V,W:pcmpgtw'],
  66: ['pcmpgtd:P,Q', 'pcmpgtd:V,W:pcmpgtd'],
  67: ['packuswb:P,Q', 'packuswb:V,W:packuswb'],
  68: ['punpckhbw:P,Q', 'punpckhbw:V,W:punpckhbw'],
  69: ['punpckhwd:P,Q', 'punpckhwd:V,W:punpckhwd'],
  '6A': ['punpckhdq:P,Q', 'punpckhdq:V,W:punpckhdq'],
  '6B': ['packssdw:P,Q', 'packssdw:V,W:packssdw'],
  '6C': [null, 'punpcklqdq:V,W:punpcklqdq'],
  '6D': [null, 'punpckhqdq:V,W:punpckhqdq'],
  '6F': ['movq:P,Q', 'movdqa:V,W:movaps', 'movdqu:V,W:movups'],
  70: ['pshufw:P,Q,Ib', 'pshufd:V,W,Ib:pshufd', 'pshufhw:V,W,Ib:pshufhw', 'pshuflw:V,W,Ib:pshuflw'],
  74: ['pcmpeqb:P,Q', 'pcmpeqb:V,W:pcmpeqb'],
  75: ['pcmpeqw:P,Q', 'pcmpeqw:V,W:pcmpeqw'],
  76: ['pcmpeqd:P,Q', 'pcmpeqd:V,W:pcmpeqd'],
  '7F': ['movq:Q,P', 'movdqa:W,V:movaps_st', 'movdqu:W,V:movups_st'],
  C2: ['cmpps:V,W,Ib:cmpps', 'cmppd:V,W,Ib:cmppd', 'cmpss:V,W,Ib:cmpss', 'cmpsd:V,W,Ib:cmpsd'],
  C4: ['pinsrw:P,Ed,Ib', 'pinsrw:V,Ed,Ib:pinsrw'],
  C5: ['pextrw:Gd,N,Ib', 'pextrw:Gd,U,Ib:pextrw'],
  C6: ['shufps:V,W,Ib:shufps', 'shufpd:V,W,Ib:shufpd'],
  D1: ['psrlw:P,Q', 'psrlw:V,W:psrlw'], D2: ['psrld:P,Q', 'psrld:V,W:psrld'], D3: ['psrlq:P,Q', 'psrlq:V,W:psrlq'],
  D4: ['paddq:P,Q', 'paddq:V,W:paddq'],
  D5: ['pmullw:P,Q', 'pmullw:V,W:pmullw'],
  D6: [null, 'movq:W,V:movq_store'],
  D7: ['pmovmskb:Gd,N', 'pmovmskb:Gd,U:pmovmskb'],
  D8: ['psubusb:P,Q', 'psubusb:V,W:psubusb'], D9: ['psubusw:P,Q', 'psubusw:V,W:psubusw'],
  DA: ['pminub:P,Q', 'pminub:V,W:pminub'],
  DB: ['pand:P,Q', 'pand:V,W:pand'],
  DC: ['paddusb:P,Q', 'paddusb:V,W:paddusb'], DD: ['paddusw:P,Q', 'paddusw:V,W:paddusw'],
  DE: ['pmaxub:P,Q', 'pmaxub:V,W:pmaxub'],
  DF: ['pandn:P,Q', 'pandn:V,W:pandn'],
  E0: ['pavgb:P,Q', 'pavgb:V,W:pavgb'],
  E1: ['psraw:P,Q', 'psraw:V,W:psraw'], E2: ['psrad:P,Q', 'psrad:V,W:psrad'],
  E3: ['pavgw:P,Q', 'pavgw:V,W:pavgw'],
  E4: ['pmulhuw:P,Q', 'pmulhuw:V,W:pmulhuw'], E5: ['pmulhw:P,Q', 'pmulhw:V,W:pmulhw'],
  E6: [null, 'cvttpd2dq:V,W:cvttpd2dq', 'cvtdq2pd:V,W:cvtdq2pd', 'cvtpd2dq:V,W:cvtpd2dq'],
  E7: ['movntq:M,P', 'movntdq:M,V:movaps_st'],
  E8: ['psubsb:P,Q', 'psubsb:V,W:psubsb'], E9: ['psubsw:P,Q', 'psubsw:V,W:psubsw'],
  EA: ['pminsw:P,Q', 'pminsw:V,W:pminsw'],
  EB: ['por:P,Q', 'por:V,W:por'],
  EC: ['paddsb:P,Q', 'paddsb:V,W:paddsb'], ED: ['paddsw:P,Q', 'paddsw:V,W:paddsw'],
  EE: ['pmaxsw:P,Q', 'pmaxsw:V,W:pmaxsw'],
  EF: ['pxor:P,Q', 'pxor:V,W:pxor'],
  F1: ['psllw:P,Q', 'psllw:V,W:psllw'], F2: ['pslld:P,Q', 'pslld:V,W:pslld'], F3: ['psllq:P,Q', 'psllq:V,W:psllq'],
  F4: ['pmuludq:P,Q', 'pmuludq:V,W:pmuludq'], F5: ['pmaddwd:P,Q', 'pmaddwd:V,W:pmaddwd'], F6: ['psadbw:P,Q', 'psadbw:V,W:psadbw'],
  F7: ['maskmovq:P,N', 'maskmovdqu:V,U:maskmovdqu'],
  D0: [null, 'addsubpd:V,W:addsubpd', null, 'addsubps:V,W:addsubps'],
  '7C': [null, 'haddpd:V,W:haddpd', null, 'haddps:V,W:haddps'],
  '7D': [null, 'hsubpd:V,W:hsubpd', null, 'hsubps:V,W:hsubps'],
  F0: [null, null, null, 'lddqu:V,M:lddqu'],
  F8: ['psubb:P,Q', 'psubb:V,W:psubb'], F9: ['psubw:P,Q', 'psubw:V,W:psubw'],
  FA: ['psubd:P,Q', 'psubd:V,W:psubd'], FB: ['psubq:P,Q', 'psubq:V,W:psubq'],
  FC: ['paddb:P,Q', 'paddb:V,W:paddb'], FD: ['paddw:P,Q', 'paddw:V,W:paddw'],
  FE: ['paddd:P,Q', 'paddd:V,W:paddd'],
};
const PFX = ['NP', '66', 'F3', 'F2'];
// MMX forms (NP, P/Q/N operands) run the handler of their SSE form on the MMX
// registers (`@mmx:NAME`, exec-mmx.ts); these differ from it and have their own
const MMX_OWN = { punpckhbw: 'punpckhbw_mmx', punpckhwd: 'punpckhwd_mmx', punpckhdq: 'punpckhdq_mmx', packsswb: 'packsswb_mmx',
  packuswb: 'packuswb_mmx', packssdw: 'packssdw_mmx', pshufw: 'pshufw', pinsrw: 'pinsrw_mmx', pextrw: 'pextrw_mmx',
  pmovmskb: 'pmovmskb_mmx', maskmovq: 'maskmovq', movntq: 'movq_from_mmx' };
for (const [op, row] of Object.entries(sse)) {
  const sseHandler = row[1] ? row[1].split(':')[2] : undefined;
  row.forEach((e, i) => {
    if (!e) return;
    const [m, ops, h] = e.split(':');
    let handler = h;
    if (i === 0 && !h && /^P|,P|,Q|,N/.test(ops)) {
      if (m === 'movq') handler = `mmx:${op === '6F' ? 'movq_to_mmx' : 'movq_from_mmx'}`;
      else if (MMX_OWN[m]) handler = `mmx:${MMX_OWN[m]}`;
      else if (sseHandler) handler = `mmx:${sseHandler}`;
    }
    add(`0F ${op} /r ${PFX[i]} ${m} ${ops} !sse${handler ? ` @${handler}` : ''}`);
  });
}
add('0F 6E /r NP W1 movq P,Ey !sse @mmx:movd_to_mmx');
add('0F 6E /r NP movd P,Ey !sse @mmx:movd_to_mmx');
add('0F 6E /r 66 W1 movq V,Ey !sse @movd_to_xmm');
add('0F 6E /r 66 movd V,Ey !sse @movd_to_xmm');
add('0F 7E /r NP W1 movq Ey,P !sse @mmx:movd_from_mmx');
add('0F 7E /r NP movd Ey,P !sse @mmx:movd_from_mmx');
add('0F 7E /r 66 W1 movq Ey,V !sse @movd_from_xmm');
add('0F 7E /r 66 movd Ey,V !sse @movd_from_xmm');
add('0F 7E /r F3 movq V,W !sse @movq_load');
add('0F 77 NP emms !sse @emms');
add('0F D6 F3 reg movq2dq V,N !sse @movq2dq');
add('0F D6 F2 reg movdq2q P,U !sse @movdq2q');
add('0F 12 NP reg movhlps V,U !sse @movhlps');
add('0F 16 NP reg movlhps V,U !sse @movlhps');
// shift-by-immediate groups 71-73
[['71', ['', '', 'psrlw', '', 'psraw', '', 'psllw', '']],
 ['72', ['', '', 'psrld', '', 'psrad', '', 'pslld', '']],
 ['73', ['', '', 'psrlq', 'psrldq', '', '', 'psllq', 'pslldq']]].forEach(([op, names]) => {
  names.forEach((m, i) => {
    if (!m) return;
    const h = { psrldq: 'psrldq', pslldq: 'pslldq', psrlq: 'psrlq_i', psllq: 'psllq_i', psrld: 'psrld_i', pslld: 'pslld_i', psrlw: 'psrlw_i', psllw: 'psllw_i', psrad: 'psrad_i', psraw: 'psraw_i' }[m];
    if (!m.endsWith('dq')) add(`0F ${op} /${i} reg NP ${m} N,Ib !sse @mmx:${m}_mmx_i`);
    add(`0F ${op} /${i} reg 66 ${m} U,Ib !sse @${h}`);
  });
});
// 0F38 / 0F3A: SSSE3 (with MMX forms), SSE4.1, SSE4.2; `name:operands` when
// the operands are not V,W (Intel order; XMM0 the implicit mask register)
const sse38 = {
  '00': 'pshufb', '01': 'phaddw', '02': 'phaddd', '03': 'phaddsw', '04': 'pmaddubsw', '05': 'phsubw', '06': 'phsubd', '07': 'phsubsw',
  '08': 'psignb', '09': 'psignw', '0A': 'psignd', '0B': 'pmulhrsw', 10: 'pblendvb:V,W,XMM0', 14: 'blendvps:V,W,XMM0', 15: 'blendvpd:V,W,XMM0',
  17: 'ptest', '1C': 'pabsb', '1D': 'pabsw', '1E': 'pabsd',
  20: 'pmovsxbw', 21: 'pmovsxbd', 22: 'pmovsxbq', 23: 'pmovsxwd', 24: 'pmovsxwq', 25: 'pmovsxdq',
  28: 'pmuldq', 29: 'pcmpeqq', '2A': 'movntdqa:V,M', '2B': 'packusdw',
  30: 'pmovzxbw', 31: 'pmovzxbd', 32: 'pmovzxbq', 33: 'pmovzxwd', 34: 'pmovzxwq', 35: 'pmovzxdq', 37: 'pcmpgtq',
  38: 'pminsb', 39: 'pminsd', '3A': 'pminuw', '3B': 'pminud', '3C': 'pmaxsb', '3D': 'pmaxsd', '3E': 'pmaxuw', '3F': 'pmaxud', 40: 'pmulld', 41: 'phminposuw',
};
for (const [op, e] of Object.entries(sse38)) {
  const [m, ops] = e.split(':');
  add(`0F38 ${op} /r 66 ${m} ${ops ?? 'V,W'} !sse @${m}`);
  // SSSE3's MMX forms
  if (parseInt(op, 16) <= 0x0b || (parseInt(op, 16) >= 0x1c && parseInt(op, 16) <= 0x1e)) add(`0F38 ${op} /r NP ${m} P,Q !sse @mmx:${m}`);
}
add('0F38 F0 /r F2 crc32b Gy,Eb @crc32');
add('0F38 F1 /r F2 crc32? Gy,Ev @crc32');
const sse3a = {
  '08': 'roundps', '09': 'roundpd', '0A': 'roundss', '0B': 'roundsd', '0C': 'blendps', '0D': 'blendpd', '0E': 'pblendw', '0F': 'palignr',
  14: 'pextrb:Ed,V,Ib', 15: 'pextrw:Ed,V,Ib:pextrw_e', 17: 'extractps:Ed,V,Ib', 20: 'pinsrb:V,Ed,Ib', 21: 'insertps',
  40: 'dpps', 41: 'dppd', 42: 'mpsadbw', 60: 'pcmpestrm', 61: 'pcmpestri', 62: 'pcmpistrm', 63: 'pcmpistri',
};
for (const [op, e] of Object.entries(sse3a)) {
  const [m, ops, h] = e.split(':');
  add(`0F3A ${op} /r 66 ${m} ${ops ?? 'V,W,Ib'} !sse @${h ?? m}`);
}
add('0F3A 16 /r 66 W1 pextrq Eq,V,Ib !sse @pextrd');
add('0F3A 16 /r 66 pextrd Ed,V,Ib !sse @pextrd');
add('0F3A 22 /r 66 W1 pinsrq V,Eq,Ib !sse @pinsrd');
add('0F3A 22 /r 66 pinsrd V,Ed,Ib !sse @pinsrd');
add('0F3A 0F /r NP palignr P,Q,Ib !sse @mmx:palignr');

// Opcode ranges with no form above, by their encoding layout only: which take
// a ModRM byte and how many immediate bytes follow (SDM appendix A).
export const LENGTH_ONLY = {
  modrm: {
    '1': ['62', 'C4', 'C5', '8F'],
    '0F': ['00-03', '0D', '0F', '10-17', '18-1F', '20-23', '28-2F', '38', '3A', '40-4F', '50-7F', '78-79', '90-9F', 'A3-A5', 'AB-AF', 'B0-B7', 'B8-BF', 'C0-C7', 'D0-FF'],
    '0F38': ['00-FF'],
    '0F3A': ['00-FF'],
  },
  imm8: {
    '0F': ['0F', '70-73', 'A4', 'AC', 'BA', 'C2', 'C4-C6'],
    '0F3A': ['00-FF'],
  },
};

/** Parses the table into form objects. */
export function forms() {
  const out = [];
  for (const line of lines) {
    const t = line.trim().split(/\s+/);
    const f = { map: t[0], line, prefix: 'any', reg: -1, mod: 'any', rm: -1, w: 'any', osize: 'any', rex: false, modrm: false, d64: false, lock: false, mnemonic: '', operands: [], classes: [], handler: '' };
    let op = t[1];
    let i = 2;
    if (op.endsWith('+r')) { f.plusr = true; op = op.slice(0, -2); }
    f.opcode = parseInt(op, 16);
    for (; i < t.length; i++) {
      const k = t[i];
      if (k === '/r') f.modrm = true;
      else if (/^\/[0-7]$/.test(k)) { f.modrm = true; f.reg = +k[1]; }
      else if (k === 'mem' || k === 'reg') { f.modrm = true; f.mod = k; }
      else if (k.startsWith('rm=')) { f.modrm = true; f.rm = +k.slice(3); f.mod = 'reg'; }
      else if (['NP', '66', 'F3', 'F2'].includes(k)) f.prefix = k;
      else if (k === 'W0' || k === 'W1') f.w = k;
      else if (k === 'o16' || k === 'o32' || k === 'o64') f.osize = k;
      else if (k === 'd64') f.d64 = true;
      else if (k === 'lock') f.lock = true;
      else if (k === 'rexb') f.rexb = true;
      else break;
    }
    f.mnemonic = t[i++];
    if (i < t.length && !t[i].startsWith('!') && !t[i].startsWith('@')) f.operands = t[i++].split(',');
    for (; i < t.length; i++) {
      if (t[i].startsWith('!')) f.classes.push(t[i].slice(1));
      else if (t[i].startsWith('@')) f.handler = t[i].slice(1);
      else throw new Error(`opcode table: cannot read "${t[i]}" in: ${line}`);
    }
    if (f.plusr) {
      for (let r = 0; r < 8; r++) {
        if (f.map === '1' && f.opcode + r === 0x90) continue;
        out.push({ ...f, opcode: f.opcode + r, plusr: undefined, opreg: r });
      }
    } else out.push(f);
  }
  return out;
}

function hex(n) {
  return n.toString(16).toUpperCase().padStart(2, '0');
}
