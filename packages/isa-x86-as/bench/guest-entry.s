# Bare-metal entry for the guest build of the workload: set a stack, call
# workload(ROUNDS in %edi, set by the bench before start), stop with hlt.
	.text
	.globl _start
_start:
	movq $0x800000, %rsp
	call workload
	hlt
