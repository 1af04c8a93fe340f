// SPDX-License-Identifier: MIT
/*
 * KVM plumbing: one VM with guest RAM, the in-kernel irqchip and one
 * thread per vCPU running KVM_RUN, started directly in long mode at the
 * guest image's entry. The flush hypercall itself is in hv.c.
 *
 * Every userspace exit of the guest is an OUT to one of the ports of
 * abi.h. Around KVM_RUN each vCPU thread tells its hvtlb_vcpu_sync where
 * it is (hvtlb_vcpu_sync_enter_guest / _exit_guest): a flush posted while
 * the vCPU is out is serviced at its next entry, and written to its
 * mailbox, which the guest applies as the OUT returns.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "image.h"
#include "mailbox.h"
#include "vm.h"

#define KVM_DEVICE "/dev/kvm"
#define KVM_API_VERSION_EXPECTED 12
#define MAX_CPUID_ENTRIES 128

#define CR0_PE (1ull << 0)
#define CR0_MP (1ull << 1)
#define CR0_ET (1ull << 4)
#define CR0_NE (1ull << 5)
#define CR0_WP (1ull << 16)
#define CR0_PG (1ull << 31)
#define CR4_PAE (1ull << 5)
#define EFER_LME (1ull << 8)
#define EFER_LMA (1ull << 10)

static int fail_errno(const char *what)
{
	int err = errno ? errno : EIO;

	fprintf(stderr, "kvm-vmm: %s: %s\n", what, strerror(err));
	return -err;
}

static int open_kvm(const char *device)
{
	int fd = open(device ? device : KVM_DEVICE, O_RDWR | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	if (ioctl(fd, KVM_GET_API_VERSION, 0) != KVM_API_VERSION_EXPECTED ||
	    ioctl(fd, KVM_CHECK_EXTENSION, KVM_CAP_IRQCHIP) <= 0 ||
	    ioctl(fd, KVM_CHECK_EXTENSION, KVM_CAP_SIGNAL_MSI) <= 0) {
		close(fd);
		return -ENODEV;
	}
	return fd;
}

int kvmvmm_probe(const char *device)
{
	int fd = open_kvm(device);

	if (fd < 0)
		return fd;
	close(fd);
	return 0;
}

static int check_config(const struct kvmvmm_config *c)
{
	if (c->nvcpus > KVMVMM_MAX_VCPUS || c->rounds > UINT32_MAX / 2)
		return -EINVAL;
	if (c->mode != KVMVMM_MODE_STALE && c->mode != KVMVMM_MODE_BENCH)
		return -EINVAL;
	if (c->mode == KVMVMM_MODE_STALE && c->strategy > KVMVMM_STRATEGY_NONE)
		return -EINVAL;
	if (c->mode == KVMVMM_MODE_BENCH &&
	    (c->bench < KVMVMM_BENCH_TSC || c->bench >= KVMVMM_BENCH_COUNT))
		return -EINVAL;
	if ((c->bench == KVMVMM_BENCH_IPI ||
	     c->bench == KVMVMM_BENCH_IPI_SEND ||
	     c->bench == KVMVMM_BENCH_IPI_HALTED) &&
	    c->mode == KVMVMM_MODE_BENCH && c->nvcpus == 1)
		return -EINVAL;
	if (c->targets >= (c->nvcpus ? c->nvcpus : 2))
		return -EINVAL;
	if ((unsigned)c->decode_profile >= HVTLB_PROFILE_COUNT_ ||
	    c->pages > KVMVMM_FLUSH_MAX_PAGES)
		return -EINVAL;
	return 0;
}

/* Guest RAM with the image copied in; checks what its header says. */
static int load_image(struct vm *vm)
{
	struct kvmvmm_image_header h;
	uint64_t ram = KVMVMM_RAM_BYTES;

	if (kvmvmm_guest_image_size < sizeof(h) ||
	    kvmvmm_guest_image_size > ram - KVMVMM_IMAGE_GPA)
		return -ENOEXEC;
	memcpy(vm->mem + KVMVMM_IMAGE_GPA, kvmvmm_guest_image,
	       kvmvmm_guest_image_size);
	memcpy(&h, kvmvmm_guest_image, sizeof(h));
	if (h.magic != KVMVMM_IMAGE_MAGIC || h.version != KVMVMM_ABI_VERSION ||
	    h.end > ram || h.shared > ram - sizeof(struct kvmvmm_shared) ||
	    h.shared % 4096 || h.cr3 > ram - 4096 || h.cr3 % 4096 ||
	    h.stacks > ram - KVMVMM_MAX_VCPUS * KVMVMM_STACK_BYTES ||
	    h.entry >= ram) {
		fprintf(stderr, "kvm-vmm: the guest image header is invalid\n");
		return -ENOEXEC;
	}
	vm->shared = (struct kvmvmm_shared *)(vm->mem + h.shared);
	return 0;
}

static void write_params(struct vm *vm)
{
	const struct kvmvmm_config *c = &vm->cfg;
	struct kvmvmm_shared *s = vm->shared;

	s->nvcpus = vm->nvcpus;
	s->mode = c->mode;
	s->strategy = c->strategy;
	s->bench = c->bench;
	s->x2apic = c->x2apic;
	s->rounds = c->rounds;
	s->targets = c->targets;
	s->pages = c->pages;
	s->deschedule_every = c->deschedule_every;
}

static int setup_vcpu(struct vm *vm, struct vcpu *v,
		      const struct kvm_cpuid2 *cpuid, uint64_t *tsc_khz)
{
	const struct kvmvmm_image_header *h =
		(const void *)(vm->mem + KVMVMM_IMAGE_GPA);
	struct kvm_segment code = {
		.limit = 0xffffffff,
		.selector = KVMVMM_SEL_KERNEL_CS,
		.type = 11,
		.present = 1,
		.s = 1,
		.l = 1,
		.g = 1,
	};
	struct kvm_segment data = {
		.limit = 0xffffffff,
		.selector = KVMVMM_SEL_KERNEL_DS,
		.type = 3,
		.present = 1,
		.s = 1,
		.db = 1,
		.g = 1,
	};
	struct kvm_mp_state runnable = { KVM_MP_STATE_RUNNABLE };
	struct kvm_sregs sregs;
	struct kvm_regs regs = { 0 };
	long khz;

	v->fd = ioctl(vm->vm_fd, KVM_CREATE_VCPU, (unsigned long)v->index);
	if (v->fd < 0)
		return fail_errno("KVM_CREATE_VCPU");
	v->run = mmap(NULL, vm->run_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		      v->fd, 0);
	if (v->run == MAP_FAILED) {
		v->run = NULL;
		return fail_errno("mmap(kvm_run)");
	}
	if (ioctl(v->fd, KVM_SET_CPUID2, cpuid) < 0)
		return fail_errno("KVM_SET_CPUID2");
	if (ioctl(v->fd, KVM_GET_SREGS, &sregs) < 0)
		return fail_errno("KVM_GET_SREGS");
	sregs.cs = code;
	sregs.ds = sregs.es = sregs.ss = data;
	sregs.fs = sregs.gs = data;
	sregs.cr0 = CR0_PE | CR0_MP | CR0_ET | CR0_NE | CR0_WP | CR0_PG;
	sregs.cr3 = h->cr3;
	sregs.cr4 = CR4_PAE;
	sregs.efer = EFER_LME | EFER_LMA;
	if (ioctl(v->fd, KVM_SET_SREGS, &sregs) < 0)
		return fail_errno("KVM_SET_SREGS");
	regs.rip = h->entry;
	regs.rsp = h->stacks + (uint64_t)(v->index + 1) * KVMVMM_STACK_BYTES;
	regs.rdi = v->index;
	regs.rflags = 2;
	if (ioctl(v->fd, KVM_SET_REGS, &regs) < 0)
		return fail_errno("KVM_SET_REGS");
	/* With an in-kernel LAPIC the APs wait for INIT/SIPI: start them
	 * like the BSP instead. */
	if (ioctl(v->fd, KVM_SET_MP_STATE, &runnable) < 0)
		return fail_errno("KVM_SET_MP_STATE");
	khz = ioctl(v->fd, KVM_GET_TSC_KHZ, 0);
	if (khz > 0)
		*tsc_khz = (uint64_t)khz;
	/* The kernel copies the GPRs here at every exit: the doorbell reads
	 * RCX/RDX and answers in RAX without two more ioctls. */
	v->run->kvm_valid_regs = KVM_SYNC_X86_REGS;
	v->sync = hvtlb_vcpu_sync_create(&kvmvmm_vcpu_ops, v);
	if (!v->sync)
		return -ENOMEM;
	return 0;
}

static int get_cpuid(int kvm_fd, struct kvm_cpuid2 **out)
{
	struct kvm_cpuid2 *c =
		calloc(1, sizeof(*c) + MAX_CPUID_ENTRIES *
					       sizeof(struct kvm_cpuid_entry2));

	if (!c)
		return -ENOMEM;
	c->nent = MAX_CPUID_ENTRIES;
	if (ioctl(kvm_fd, KVM_GET_SUPPORTED_CPUID, c) < 0) {
		free(c);
		return fail_errno("KVM_GET_SUPPORTED_CPUID");
	}
	*out = c;
	return 0;
}

static void vm_destroy(struct vm *vm)
{
	uint32_t i;

	for (i = 0; i < KVMVMM_MAX_VCPUS; i++) {
		struct vcpu *v = &vm->vcpu[i];

		hvtlb_vcpu_sync_destroy(v->sync);
		if (v->run)
			munmap(v->run, vm->run_size);
		if (v->fd >= 0)
			close(v->fd);
	}
	if (vm->mem)
		munmap(vm->mem, KVMVMM_RAM_BYTES);
	if (vm->vm_fd >= 0)
		close(vm->vm_fd);
	if (vm->kvm_fd >= 0)
		close(vm->kvm_fd);
	pthread_cond_destroy(&vm->cond);
	pthread_mutex_destroy(&vm->lock);
	free(vm);
}

/* A VM with nothing open yet: vm_destroy() may take it as it is. */
static struct vm *vm_alloc(const struct kvmvmm_config *cfg)
{
	struct vm *vm;
	uint32_t i;

	vm = calloc(1, sizeof(*vm));
	if (!vm)
		return NULL;
	vm->cfg = *cfg;
	vm->nvcpus = cfg->nvcpus;
	vm->kvm_fd = vm->vm_fd = -1;
	for (i = 0; i < KVMVMM_MAX_VCPUS; i++) {
		vm->vcpu[i].vm = vm;
		vm->vcpu[i].index = i;
		vm->vcpu[i].fd = -1;
	}
	atomic_init(&vm->stop, false);
	pthread_mutex_init(&vm->lock, NULL);
	pthread_cond_init(&vm->cond, NULL);
	return vm;
}

/* Opens the KVM device and creates the VM, with its guest RAM, the
 * in-kernel irqchip and the halt-polling limit asked for. What is open
 * on failure, vm_destroy() closes. */
static int open_vm(struct vm *vm)
{
	const struct kvmvmm_config *cfg = &vm->cfg;
	struct kvm_userspace_memory_region region = { 0 };
	int ret;

	ret = vm->kvm_fd = open_kvm(cfg->device);
	if (ret < 0) {
		fprintf(stderr, "kvm-vmm: %s: %s\n",
			cfg->device ? cfg->device : KVM_DEVICE, strerror(-ret));
		return ret;
	}
	ret = ioctl(vm->kvm_fd, KVM_GET_VCPU_MMAP_SIZE, 0);
	if (ret < (int)sizeof(struct kvm_run))
		return fail_errno("KVM_GET_VCPU_MMAP_SIZE");
	vm->run_size = (size_t)ret;
	vm->vm_fd = ioctl(vm->kvm_fd, KVM_CREATE_VM, 0);
	if (vm->vm_fd < 0)
		return fail_errno("KVM_CREATE_VM");
	vm->mem = mmap(NULL, KVMVMM_RAM_BYTES, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (vm->mem == MAP_FAILED) {
		vm->mem = NULL;
		return fail_errno("mmap(guest RAM)");
	}
	region.memory_size = KVMVMM_RAM_BYTES;
	region.userspace_addr = (uintptr_t)vm->mem;
	if (ioctl(vm->vm_fd, KVM_SET_USER_MEMORY_REGION, &region) < 0)
		return fail_errno("KVM_SET_USER_MEMORY_REGION");
	if (ioctl(vm->vm_fd, KVM_CREATE_IRQCHIP, 0) < 0)
		return fail_errno("KVM_CREATE_IRQCHIP");
	if (cfg->halt_poll_ns >= 0) {
		struct kvm_enable_cap cap = {
			.cap = KVM_CAP_HALT_POLL,
			.args = { (uint64_t)cfg->halt_poll_ns },
		};

		if (ioctl(vm->vm_fd, KVM_ENABLE_CAP, &cap) < 0)
			return fail_errno("KVM_ENABLE_CAP(HALT_POLL)");
	}
	return 0;
}

static int vm_create(const struct kvmvmm_config *cfg, struct vm **out,
		     uint64_t *tsc_khz)
{
	struct kvm_cpuid2 *cpuid = NULL;
	struct vm *vm;
	uint32_t i;
	int ret;

	vm = vm_alloc(cfg);
	if (!vm)
		return -ENOMEM;
	ret = open_vm(vm);
	if (ret < 0)
		goto err;
	ret = load_image(vm);
	if (ret < 0)
		goto err;
	write_params(vm);
	ret = get_cpuid(vm->kvm_fd, &cpuid);
	if (ret < 0)
		goto err;
	for (i = 0; i < vm->nvcpus; i++) {
		ret = setup_vcpu(vm, &vm->vcpu[i], cpuid, tsc_khz);
		if (ret < 0)
			goto err;
	}
	free(cpuid);
	*out = vm;
	return 0;

err:
	free(cpuid);
	vm_destroy(vm);
	return ret;
}

static void console_put(struct vcpu *v, uint8_t c)
{
	if (c != '\n' && v->line_len < sizeof(v->line) - 1) {
		v->line[v->line_len++] = (char)c;
		return;
	}
	v->line[v->line_len] = 0;
	fprintf(stderr, "guest vCPU %u: %s\n", v->index, v->line);
	v->line_len = 0;
}

static void sleep_us(uint32_t us)
{
	struct timespec ts = { us / 1000000, (long)(us % 1000000) * 1000 };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* Returns 0 to keep running, 1 when the vCPU is done, or -errno. */
static int handle_io(struct vcpu *v)
{
	struct kvm_run *run = v->run;
	uint32_t value = 0;

	if (run->io.direction != KVM_EXIT_IO_OUT || run->io.count != 1 ||
	    run->io.size > sizeof(value) ||
	    run->io.data_offset > v->vm->run_size - run->io.size) {
		/* Not one of ours (an IN, a string OUT): reads give 0. */
		v->in_wrapper = false;
		return 0;
	}
	memcpy(&value, (uint8_t *)run + run->io.data_offset, run->io.size);
	v->in_wrapper = true;
	switch (run->io.port) {
	case KVMVMM_PORT_HYPERCALL:
		v->stats.hypercalls++;
		hv_doorbell(v);
		break;
	case KVMVMM_PORT_KICK_ACK:
		v->stats.kick_exits++;
		v->after_kick = true;
		break;
	case KVMVMM_PORT_DESCHEDULE:
		sleep_us(v->vm->cfg.deschedule_us);
		break;
	case KVMVMM_PORT_YIELD:
		v->stats.yields++;
		sched_yield();
		break;
	case KVMVMM_PORT_CONSOLE:
		console_put(v, (uint8_t)value);
		break;
	case KVMVMM_PORT_DONE:
		v->done = true;
		v->fail = value;
		return 1;
	default: /* KVMVMM_PORT_NOP and unknown ports: nothing */
		break;
	}
	return 0;
}

static int handle_exit(struct vcpu *v)
{
	struct kvm_run *run = v->run;

	v->stats.exits++;
	switch (run->exit_reason) {
	case KVM_EXIT_IO:
		return handle_io(v);
	case KVM_EXIT_INTR:
		v->in_wrapper = false;
		return 0;
	case KVM_EXIT_SHUTDOWN:
		fprintf(stderr, "kvm-vmm: vCPU %u: shutdown (triple fault)\n",
			v->index);
		return -EFAULT;
	case KVM_EXIT_MMIO:
		fprintf(stderr,
			"kvm-vmm: vCPU %u: access to unbacked GPA "
			"0x%llx\n",
			v->index, (unsigned long long)run->mmio.phys_addr);
		return -EFAULT;
	case KVM_EXIT_FAIL_ENTRY:
		fprintf(stderr,
			"kvm-vmm: vCPU %u: entry failed, reason "
			"0x%llx\n",
			v->index,
			(unsigned long long)
				run->fail_entry.hardware_entry_failure_reason);
		return -EFAULT;
	case KVM_EXIT_INTERNAL_ERROR:
		fprintf(stderr, "kvm-vmm: vCPU %u: KVM internal error %u\n",
			v->index, run->internal.suberror);
		return -EFAULT;
	default:
		fprintf(stderr, "kvm-vmm: vCPU %u: unexpected exit %u\n",
			v->index, run->exit_reason);
		return -EFAULT;
	}
}

/* Before an entry: take the flushes posted while this vCPU was out. */
static int enter(struct vcpu *v)
{
	int serviced = hvtlb_vcpu_sync_enter_guest(v->sync);

	if (serviced > 0) {
		v->stats.services += (uint64_t)serviced;
		if (!v->after_kick)
			v->stats.deferred += (uint64_t)serviced;
	}
	v->after_kick = false;
	/* The guest applies its mailbox when an OUT returns. After any
	 * other exit it resumes elsewhere: make it take the kick path. */
	if (!v->in_wrapper && v->vm->shared->mailbox[v->index].pending)
		return hv_inject(v, KVMVMM_VEC_KICK);
	return 0;
}

/* vCPU i on CPU i, when there are at least as many CPUs as vCPUs: two
 * spinning vCPUs never share a CPU then. */
static void pin(struct vcpu *v)
{
	long ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	cpu_set_t set;

	if (ncpus < (long)v->vm->nvcpus || ncpus > CPU_SETSIZE)
		return;
	CPU_ZERO(&set);
	CPU_SET(v->index, &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

static void *vcpu_thread(void *arg)
{
	struct vcpu *v = arg;
	struct vm *vm = v->vm;
	int ret = 0;

	if (vm->cfg.pin)
		pin(v);

	while (!atomic_load(&vm->stop)) {
		ret = enter(v);
		if (ret < 0)
			break;
		ret = ioctl(v->fd, KVM_RUN, 0);
		hvtlb_vcpu_sync_exit_guest(v->sync);
		if (ret < 0) {
			if (errno == EINTR || errno == EAGAIN) {
				v->in_wrapper = false;
				ret = 0;
				continue;
			}
			ret = fail_errno("KVM_RUN");
			break;
		}
		ret = handle_exit(v);
		if (ret != 0)
			break;
	}
	pthread_mutex_lock(&vm->lock);
	if (ret < 0 && !vm->error)
		vm->error = ret;
	vm->finished++;
	pthread_cond_signal(&vm->cond);
	pthread_mutex_unlock(&vm->lock);
	return NULL;
}

static void on_stop_signal(int sig)
{
	(void)sig;
}

/* Gets every vCPU thread out of KVM_RUN. */
static void stop_all(struct vm *vm)
{
	uint32_t i;

	atomic_store(&vm->stop, true);
	for (i = 0; i < vm->nvcpus; i++) {
		struct vcpu *v = &vm->vcpu[i];

		if (!v->started)
			continue;
		__atomic_store_n(&v->run->immediate_exit, 1, __ATOMIC_SEQ_CST);
		pthread_kill(v->thread, SIGUSR1);
	}
}

/* Waits for every vCPU to finish, at most timeout_ms. */
static int wait_all(struct vm *vm, uint32_t timeout_ms)
{
	struct timespec deadline;
	int ret = 0;

	clock_gettime(CLOCK_REALTIME, &deadline);
	deadline.tv_sec += timeout_ms / 1000;
	deadline.tv_nsec += (long)(timeout_ms % 1000) * 1000000;
	if (deadline.tv_nsec >= 1000000000) {
		deadline.tv_sec++;
		deadline.tv_nsec -= 1000000000;
	}
	pthread_mutex_lock(&vm->lock);
	while (vm->finished < vm->nvcpus && !vm->error && ret == 0)
		ret = pthread_cond_timedwait(&vm->cond, &vm->lock, &deadline);
	pthread_mutex_unlock(&vm->lock);
	return ret == ETIMEDOUT ? -ETIMEDOUT : 0;
}

static void collect(struct vm *vm, struct kvmvmm_result *res)
{
	const struct kvmvmm_shared *s = vm->shared;
	struct kvmvmm_stats *t = &res->stats;
	uint32_t i, n;

	for (i = 0; i < vm->nvcpus; i++) {
		const struct vcpu *v = &vm->vcpu[i];

		t->exits += v->stats.exits;
		t->hypercalls += v->stats.hypercalls;
		t->kicks += atomic_load(&v->kicks);
		t->kick_exits += v->stats.kick_exits;
		t->services += v->stats.services;
		t->deferred += v->stats.deferred;
		t->timeouts += v->stats.timeouts;
		t->dropped_targets += v->stats.dropped_targets;
		t->yields += v->stats.yields;
		t->decode_ns += v->stats.decode_ns;
		t->post_ns += v->stats.post_ns;
		if (!res->guest_fail && v->fail)
			res->guest_fail = v->fail;
	}
	res->stale_reads = s->stale_reads;
	res->fresh_reads = s->fresh_reads;
	memcpy(res->stale_by_vcpu, s->stale_by_vcpu,
	       sizeof(res->stale_by_vcpu));
	res->failed_status = s->failed_status;
	n = s->nsamples < KVMVMM_MAX_SAMPLES ? s->nsamples : KVMVMM_MAX_SAMPLES;
	res->samples = n ? malloc(n * sizeof(uint64_t)) : NULL;
	if (res->samples) {
		memcpy(res->samples, s->samples, n * sizeof(uint64_t));
		res->nsamples = n;
	}
}

int kvmvmm_run(const struct kvmvmm_config *cfg, struct kvmvmm_result *res)
{
	static const struct sigaction stop_action = {
		.sa_handler = on_stop_signal,
	};
	struct kvmvmm_config c = *cfg;
	struct vm *vm = NULL;
	uint64_t khz = 0;
	uint32_t i;
	int ret;

	memset(res, 0, sizeof(*res));
	if (!c.nvcpus)
		c.nvcpus = 2;
	if (!c.rounds)
		c.rounds = 1000;
	if (!c.timeout_ms)
		c.timeout_ms = 60000;
	ret = check_config(&c);
	if (ret < 0)
		return ret;
	ret = vm_create(&c, &vm, &khz);
	if (ret < 0)
		return ret;
	vm->shared->spin_limit = (khz ? khz : 3000000) * 1000ull * 10;
	vm->shared->yield_cycles =
		(khz ? khz : 3000000) * (c.yield_us ? c.yield_us : 500) / 1000;
	vm->shared->idle_cycles = (khz ? khz : 3000000) * c.idle_us / 1000;
	res->tsc_khz = khz;

	/* No SA_RESTART: the signal only has to make KVM_RUN return. */
	sigaction(SIGUSR1, &stop_action, NULL);
	for (i = 0; i < vm->nvcpus; i++) {
		struct vcpu *v = &vm->vcpu[i];

		if (pthread_create(&v->thread, NULL, vcpu_thread, v)) {
			ret = -EAGAIN;
			break;
		}
		v->started = true;
	}
	if (ret == 0)
		ret = wait_all(vm, c.timeout_ms);
	if (ret < 0 || vm->error || vm->finished < vm->nvcpus)
		stop_all(vm);
	for (i = 0; i < vm->nvcpus; i++) {
		if (vm->vcpu[i].started)
			pthread_join(vm->vcpu[i].thread, NULL);
	}
	if (ret == 0 && vm->error)
		ret = vm->error;
	if (ret == -ETIMEDOUT)
		fprintf(stderr, "kvm-vmm: the guest did not finish in %u ms\n",
			c.timeout_ms);
	collect(vm, res);
	vm_destroy(vm);
	return ret;
}
