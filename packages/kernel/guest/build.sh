#!/usr/bin/env bash
# Rebuild the guest software for both ISAs, bit for bit: libc, user programs,
# the initrd, the kernel and the sample module, then copy the results to
# images/<isa>/ (kernel.elf, modules/hello.ko, initrd.cpio).
#
# Usage: build.sh [--out DIR] [--arch x86_64|arm|arm-thumb]... [--libc-only]
#   --out DIR    write images to DIR/<isa>/ instead of images/<isa>/
#   --arch A     build only that image set (repeatable; default all three)
#   --libc-only  build only the guest libc (crt0.o and libc.a under
#                $GUEST_BUILD_DIR/<isa>/libc), for compiling programs
#                against it; no images, and the CLI is not needed
#
# arm-thumb is the ARM guest with every C file compiled as Thumb-2 (T32):
# the same sources and the same arch/arm parts as arm, only -mthumb for
# -marm. The assembly files say `.arm` themselves and stay A32 (exception
# vectors, the syscall stub, crt0, the division helpers), reached by
# interworking calls the linker makes.
#
# Programs with USDT probes of their own (user/<prog>_provider.d defines
# their provider) go through the project's own link step, as with DTrace:
# `wdtrace -h` writes the header the C file includes, `wdtrace -G` turns
# the probe call sites of the object into no-ops and writes the probe
# description object linked into the program. That is the built CLI
# (apps/cli, `npm run build` first; WDTRACE=path overrides it), so the
# TypeScript is built before the guest; the committed images need neither.
#
# Reproducibility: fixed flags, sources taken in sorted order, every path in
# debug info rewritten to /guest, archives made with llvm-ar's deterministic
# mode, the cpio written by tools/mkcpio.c with zero timestamps/uids, and
# SOURCE_DATE_EPOCH-free tools. Needs clang, ld.lld, llvm-ar and llvm-strip
# (LLVM 14 is what the committed images were built with).
set -euo pipefail

GUEST="$(cd "$(dirname "$0")" && pwd)"
OUT="$GUEST/images"
ARCHES=()
LIBC_ONLY=0
while [ $# -gt 0 ]; do
	case "$1" in
	--out) OUT="$(mkdir -p "$2" && cd "$2" && pwd)"; shift 2 ;;
	--arch) ARCHES+=("$2"); shift 2 ;;
	--libc-only) LIBC_ONLY=1; shift ;;
	*) echo "build.sh: unknown argument '$1'" >&2; exit 2 ;;
	esac
done
[ ${#ARCHES[@]} -eq 0 ] && ARCHES=(x86_64 arm arm-thumb)

CC=${CC:-clang}
LD=${LD:-ld.lld}
AR=${AR:-llvm-ar}
STRIP=${STRIP:-llvm-strip}
for tool in "$CC" "$LD" "$AR" "$STRIP" node; do
	command -v "$tool" >/dev/null || { echo "build.sh: '$tool' not found" >&2; exit 1; }
done
WDTRACE=${WDTRACE:-$(cd "$(dirname "$0")/../../.." && pwd)/apps/cli/bin/wdtrace.js}
WDTRACE_MAIN="$(dirname "$WDTRACE")/../dist/main.js"
if [ "$LIBC_ONLY" = 0 ] && { [ ! -f "$WDTRACE" ] || [ ! -f "$WDTRACE_MAIN" ]; }; then
	echo "build.sh: the wdtrace CLI ($WDTRACE) is not built: run 'npm run build' first (its -h and -G make the USDT probes of the guest programs)" >&2
	exit 1
fi

export LC_ALL=C
# Work from the guest folder so the compilation directory recorded in debug
# info is $GUEST, which -fdebug-prefix-map rewrites to /guest.
cd "$GUEST"
BUILD="${GUEST_BUILD_DIR:-$GUEST/build}"
mkdir -p "$BUILD"
BUILD="$(cd "$BUILD" && pwd)"
HOSTCC_FLAGS=(-O2 -Wall -Werror)

# Flags shared by every guest compilation.
common_flags() {
	local arch=$1
	local f=(-O2 -g -std=gnu11 -ffreestanding -fno-builtin -nostdlibinc
		-fno-omit-frame-pointer -fno-stack-protector -fno-common
		-Wall -Wextra -Wno-unused-parameter -Wpointer-arith -Werror
		"-ffile-prefix-map=$GUEST=/guest" "-fdebug-prefix-map=$GUEST=/guest" -fdebug-compilation-dir=/guest
		-I "$GUEST/include")
	case "$arch" in
	x86_64) f+=(--target=x86_64-unknown-none-elf -mno-omit-leaf-frame-pointer) ;;
	arm) f+=(--target=armv7a-none-eabi -marm -mfloat-abi=soft -mno-unaligned-access) ;;
	arm-thumb) f+=(--target=armv7a-none-eabi -mthumb -mfloat-abi=soft -mno-unaligned-access) ;;
	esac
	printf '%s\n' "${f[@]}"
}

# The source folder (libc/arch/*, kernel/arch/*) of an image set.
srcarch() { case "$1" in arm-thumb) echo arm ;; *) echo "$1" ;; esac; }

sorted() { printf '%s\n' "$@" | sort; }

# ---- host tool: deterministic newc cpio writer ----
build_tools() {
	mkdir -p "$BUILD/tools"
	"$CC" "${HOSTCC_FLAGS[@]}" -o "$BUILD/tools/mkcpio" "$GUEST/tools/mkcpio.c"
}

# ---- libc ----
build_libc() {
	local arch=$1 obj="$BUILD/$arch/libc"
	local -a flags
	mapfile -t flags < <(common_flags "$arch")
	flags+=(-fno-pic -I "$GUEST/libc/include")
	mkdir -p "$obj"
	local objs=()
	for src in $(sorted "$GUEST"/libc/src/*.c "$GUEST"/lib/string.c "$GUEST"/lib/format.c); do
		local o="$obj/$(basename "${src%.c}").o"
		"$CC" "${flags[@]}" -c "$src" -o "$o"
		objs+=("$o")
	done
	local stub=syscall.S
	[ "$arch" = arm-thumb ] && stub=syscall-thumb.S
	"$CC" "${flags[@]}" -c "$GUEST/libc/arch/$(srcarch "$arch")/$stub" -o "$obj/syscall.o"
	objs+=("$obj/syscall.o")
	if [ "$(srcarch "$arch")" = arm ]; then
		"$CC" "${flags[@]}" -c "$GUEST/lib/divide.c" -o "$obj/divide.o"
		"$CC" "${flags[@]}" -c "$GUEST/lib/divide_arm.S" -o "$obj/divide_arm.o"
		objs+=("$obj/divide.o" "$obj/divide_arm.o")
	fi
	"$CC" "${flags[@]}" -c "$GUEST/libc/arch/$(srcarch "$arch")/crt0.S" -o "$obj/crt0.o"
	rm -f "$obj/libc.a"
	"$AR" rcsD "$obj/libc.a" "${objs[@]}"
}

# ---- user programs ----
USER_PROGRAMS=(cat cp cpubound date dd echo env fault false fileio forkheavy grep head init kill kvd ls mallocstress mkdir mv nice pipeserver ps rm seq sh sleep sort spin stat syscallheavy sysprobe tee touch true uname wc xargs yes)

# Programs for one ISA only: fpmix needs hardware floating point (the ARM
# guest is soft-float and its libc has no soft-float routines).
X86_64_PROGRAMS=(fpmix)

programs_for() {
	printf '%s\n' "${USER_PROGRAMS[@]}"
	if [ "$1" = x86_64 ]; then printf '%s\n' "${X86_64_PROGRAMS[@]}"; fi
}

build_user() {
	local arch=$1 obj="$BUILD/$arch/user" lib="$BUILD/$arch/libc"
	local -a flags progs
	mapfile -t flags < <(common_flags "$arch")
	mapfile -t progs < <(programs_for "$arch")
	flags+=(-fno-pic -I "$GUEST/libc/include")
	mkdir -p "$obj/bin" "$obj/include"
	for prog in "${progs[@]}"; do
		local provider="user/${prog}_provider.d" usdt=()
		if [ -f "$provider" ]; then
			# USDT: the header from the provider definition, the object's probe sites made no-ops.
			node "$WDTRACE" -h -s "$provider" -o "$obj/include/${prog}_provider.h"
			"$CC" "${flags[@]}" -D_DTRACE_VERSION=1 -I "$obj/include" -c "$GUEST/user/$prog.c" -o "$obj/$prog.o"
			node "$WDTRACE" -G -s "$provider" -o "$obj/${prog}_provider.o" "$obj/$prog.o"
			# The probe description names a static function by its object's FILE symbol: keep them.
			usdt=("$obj/${prog}_provider.o")
		else
			"$CC" "${flags[@]}" -c "$GUEST/user/$prog.c" -o "$obj/$prog.o"
		fi
		"$LD" -static -nostdlib --build-id=none -e _start -z noexecstack \
			-o "$obj/bin/$prog.full" "$lib/crt0.o" "$obj/$prog.o" "${usdt[@]}" "$lib/libc.a"
		"$STRIP" --strip-debug ${usdt[@]:+--keep-file-symbols} -o "$obj/bin/$prog" "$obj/bin/$prog.full"
	done
}

# ---- initrd ----
build_initrd() {
	local arch=$1 root="$BUILD/$arch/rootfs" list="$BUILD/$arch/initrd.list"
	local -a progs
	mapfile -t progs < <(programs_for "$arch")
	rm -rf "$root"
	mkdir -p "$root/bin" "$root/sbin" "$root/etc" "$root/dev" "$root/tmp" "$root/home" "$root/proc"
	for prog in "${progs[@]}"; do
		if [ "$prog" = init ]; then
			cp "$BUILD/$arch/user/bin/init" "$root/sbin/init"
		else
			cp "$BUILD/$arch/user/bin/$prog" "$root/bin/$prog"
		fi
	done
	cp "$GUEST"/etc/* "$root/etc/"
	# The list mkcpio reads: TYPE MODE PATH [SOURCE | MAJOR MINOR].
	{
		echo "dir 0755 bin"
		echo "dir 0755 dev"
		echo "chr 0600 dev/console 5 1"
		echo "chr 0666 dev/null 1 3"
		echo "chr 0666 dev/zero 1 5"
		echo "dir 0755 etc"
		for f in $(cd "$root" && ls etc | sort); do echo "file 0644 etc/$f $root/etc/$f"; done
		echo "dir 0755 home"
		echo "dir 0555 proc"
		echo "chr 0444 proc/tasks 60 0"
		echo "dir 0755 sbin"
		echo "file 0755 sbin/init $root/sbin/init"
		for f in $(cd "$root" && ls bin | sort); do echo "file 0755 bin/$f $root/bin/$f"; done
		echo "dir 1777 tmp"
	} > "$list"
	"$BUILD/tools/mkcpio" "$list" "$BUILD/$arch/initrd.cpio"
}

# ---- kernel and modules ----
KERNEL_BUILD="$GUEST/kernel/build.inc.sh"

install_images() {
	local arch=$1 dst="$OUT/$arch"
	mkdir -p "$dst/modules"
	cp "$BUILD/$arch/initrd.cpio" "$dst/initrd.cpio"
	if [ -f "$BUILD/$arch/kernel/kernel.elf" ]; then
		cp "$BUILD/$arch/kernel/kernel.elf" "$dst/kernel.elf"
		cp "$BUILD/$arch/modules/hello.ko" "$dst/modules/hello.ko"
	fi
}

[ "$LIBC_ONLY" = 0 ] && build_tools
for arch in "${ARCHES[@]}"; do
	case "$arch" in x86_64|arm|arm-thumb) ;; *) echo "build.sh: unknown arch '$arch'" >&2; exit 2 ;; esac
	rm -rf "$BUILD/$arch"
	build_libc "$arch"
	if [ "$LIBC_ONLY" = 1 ]; then
		echo "build.sh: $arch libc in $BUILD/$arch/libc"
		continue
	fi
	build_user "$arch"
	build_initrd "$arch"
	if [ -f "$KERNEL_BUILD" ]; then
		# shellcheck source=kernel/build.inc.sh
		. "$KERNEL_BUILD"
		build_kernel "$arch"
		build_modules "$arch"
	fi
	install_images "$arch"
	echo "build.sh: $arch images in $OUT/$arch"
done
