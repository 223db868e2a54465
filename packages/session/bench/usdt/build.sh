#!/bin/sh
# Rebuilds the usdt bench's program (loop-x86_64, loop-arm) with clang,
# `wdtrace -h`/`-G` and ld.lld.
set -e
cd "$(dirname "$0")"
cli=../../../../apps/cli/bin/wdtrace.js
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
node "$cli" -h -s loop.d -o "$tmp/loop.h"
flags="-O2 -ffreestanding -fno-stack-protector -fno-pic -D_DTRACE_VERSION=1 -fno-asynchronous-unwind-tables -fno-ident -I$tmp"
clang --target=x86_64-linux-gnu $flags -c loop.c -o "$tmp/loop-x86_64.o"
clang --target=arm-linux-gnueabihf -march=armv7-a -marm $flags -c loop.c -o "$tmp/loop-arm.o"
for set in x86_64 arm; do
	node "$cli" -G -s loop.d -o "$tmp/loop-$set-probes.o" "$tmp/loop-$set.o"
	ld.lld -static -e _start --build-id=none -o "loop-$set" "$tmp/loop-$set.o" "$tmp/loop-$set-probes.o"
done
