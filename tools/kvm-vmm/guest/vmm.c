// SPDX-License-Identifier: MIT
/*
 * The guest's exits to the VMM: every userspace exit is an OUT made here.
 * When one returns to user mode, the mailbox is applied before anything
 * else runs: that is where a flush the VMM deferred (because this vCPU was
 * outside the guest when it was requested) takes effect. The kick handler
 * applies it itself (irq.c).
 */
#include "guest.h"

static bool user_mode(void)
{
	uint16_t cs;

	__asm__ volatile("mov %%cs, %0" : "=r"(cs));
	return (cs & 3) == 3;
}

static void after_exit(void)
{
	if (user_mode() && shared.mailbox[self()].pending)
		sys(SYS_MAILBOX, 0, 0);
}

void vmm_out(uint16_t port, uint32_t value)
{
	__asm__ volatile("outl %0, %w1" ::"a"(value), "Nd"(port) : "memory");
	after_exit();
}

uint64_t vmm_hypercall(uint64_t control, uint64_t input_gpa)
{
	uint64_t result;

	__asm__ volatile("mov %[out], %%r8\n\t"
			 "outl %%eax, %[port]"
			 : "=a"(result)
			 : "a"((uint32_t)input_gpa), "c"(control),
			   "d"(input_gpa), [out] "r"(0ull),
			   [port] "i"(KVMVMM_PORT_HYPERCALL)
			 : "r8", "memory");
	after_exit();
	return result;
}

void console_puts(const char *s)
{
	while (*s)
		vmm_out(KVMVMM_PORT_CONSOLE, (uint8_t)*s++);
}

void console_hex(uint64_t v)
{
	char buf[19];
	int i;

	buf[0] = '0';
	buf[1] = 'x';
	for (i = 0; i < 16; i++)
		buf[2 + i] = "0123456789abcdef"[(v >> (60 - 4 * i)) & 0xf];
	buf[18] = 0;
	console_puts(buf);
}
