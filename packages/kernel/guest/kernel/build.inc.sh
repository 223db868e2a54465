# Kernel and module build steps, sourced by ../build.sh (which defines
# GUEST, BUILD, CC, LD and common_flags). Sources are compiled in sorted
# order and linked with --emit-relocs, leaving __dtrace_probe_* undefined
# for krtld (see ../README.md, "Static tracing sites").

kernel_flags() {
	local arch=$1
	common_flags "$arch"
	printf '%s\n' -I "$GUEST/kernel/include" -I "$GUEST/kernel/arch/$(srcarch "$arch")/include" \
		-fno-pic -fno-asynchronous-unwind-tables -fno-unwind-tables -D__KERNEL__ \
		-mllvm -enable-shrink-wrap=false
	case "$arch" in
	x86_64) printf '%s\n' -mcmodel=kernel -mno-red-zone -mno-sse -mno-sse2 -mno-mmx -mno-80387 ;;
	arm|arm-thumb) printf "%s\n" -mfpu=none ;;
	esac
}

build_kernel() {
	local arch=$1 obj="$BUILD/$arch/kernel" src_arch
	local -a flags srcs objs
	src_arch=$(srcarch "$arch")
	mapfile -t flags < <(kernel_flags "$arch")
	mkdir -p "$obj"
	mapfile -t srcs < <(cd "$GUEST" && ls kernel/init/*.c kernel/core/*.c kernel/mm/*.c \
		kernel/fs/*.c kernel/drivers/*.c kernel/lib/*.c "kernel/arch/$src_arch"/*.c \
		"kernel/arch/$src_arch"/*.S lib/string.c lib/format.c | sort)
	if [ "$src_arch" = arm ]; then
		srcs+=(lib/divide.c lib/divide_arm.S)
	fi
	for src in "${srcs[@]}"; do
		local o="$obj/$(echo "${src%.*}" | tr / _).o"
		"$CC" "${flags[@]}" -c "$src" -o "$o"
		objs+=("$o")
	done
	"$LD" -nostdlib -static --build-id=none --emit-relocs --unresolved-symbols=ignore-all \
		-z noexecstack -z max-page-size=4096 -T "$GUEST/kernel/arch/$src_arch/kernel.ld" \
		-o "$obj/kernel.elf" "${objs[@]}"
}

build_modules() {
	local arch=$1 obj="$BUILD/$arch/modules"
	local -a flags
	mapfile -t flags < <(kernel_flags "$arch")
	mkdir -p "$obj"
	# A module is one relocatable object (ET_REL); krtld links it at load time.
	"$CC" "${flags[@]}" -c "$GUEST/modules/hello/hello.c" -o "$obj/hello.ko"
}
