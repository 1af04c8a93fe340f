/*
 * proofs/vmm-assist.pml: the VMM-assisted flush (strategy "vmm-assist",
 * Shoot4U: Ouyang, Lange and Zheng, VEE 2016): one call asks the
 * hypervisor to invalidate the targets' TLBs on their physical CPUs, so
 * that a preempted target costs the caller nothing.
 *
 * Models, in the C:
 *   src/core/strategy-vmm-assist.c:vmm_assist_flush   the guest flushes
 *       its own TLB (core_local_flush), then makes the call with the
 *       remote targets (the caller is not one of them)
 *   src/sim/hypervisor.c:sim_op_vmm_flush   the host marks the targets
 *       (drop-target: the highest one is left out) and calls hv_post
 *   src/sim/hypervisor.c:hv_post (vmm = true)   push to each target's
 *       flush queue; a target that runs guest code gets the host's IPI
 *       (kick) to its pCPU and is counted; one that does not is flushed
 *       before its next entry; then the wait for the count (no-wait:
 *       none, the call returns at once)
 *   src/sim/hypervisor.c:sim_hv_on_kick, vcpu_service_fq   the IPI lands on
 *       the target's pCPU: if the vCPU runs, it exits and the host
 *       invalidates its TLB there (Shoot4U's INVVPID of the range), then
 *       acknowledges; if not, it acknowledges at once
 *   src/sim/hypervisor.c:sim_hv_vcpu_entry   a vCPU flushes its queue
 *       before it enters
 * and, for the host's view of whether a vCPU runs guest code, KVM's
 * vcpu->mode protocol as in hyperv.pml (kvm_vcpu_exiting_guest_mode;
 * vcpu_enter_guest sets IN_GUEST_MODE and re-checks its requests):
 * Shoot4U is a KVM hypercall, and any host must read "running" and post
 * the flush without losing a vCPU that enters in between.
 * The simulator runs the post and an entry as single events; the model
 * lets them interleave, step by step, as on real threads.
 *
 * Faults (docs/oracle.md section 4):
 *   FAULT_NO_WAIT       the call returns before the kicked targets
 *       acknowledged (for vmm-assist the guest's wait is the host's)
 *   FAULT_DROP_TARGET   the host leaves the highest target out
 *
 * Abstraction as in ipi.pml: pt the page's generation, tlb[v] what vCPU
 * v caches, done the newest generation whose flush returned.
 *
 * Properties: a vCPU in guest mode never uses a translation older than a
 * returned flush (assert, at every guest step of every vCPU); no
 * deadlock (invalid end states); liveness (ltl live): every posted flush
 * is serviced, and the caller finishes, under weak fairness.
 *
 * Bounds: N = 3 vCPUs: vCPU 0 makes FLUSHES = 2 calls in a row, each
 * naming vCPUs 1 and 2 (two targets, so that "the highest" is not
 * "all"); the targets enter, run and exit at will. no-wait needs one
 * target in guest mode, kicked and not yet flushed, at the return;
 * drop-target one target missed. The second call reuses the count, the
 * queues and the kick state.
 *
 * Fairness: a kick lands after at most one more guest step (slack), and
 * before the vCPU enters again once out (an entry services the queue
 * anyway, so this hides no stale use).
 *
 * Variants: FAULT_NO_WAIT FAULT_DROP_TARGET
 */
#define N 3
#define FLUSHES 2
#define OUT 0       /* OUTSIDE_GUEST_MODE */
#define IN 1        /* IN_GUEST_MODE */
#define EXITING 2   /* EXITING_GUEST_MODE: kicked */

byte pt;
byte tlb[N];
byte done;
byte mode[N];      /* KVM vcpu->mode */
bool req[N];       /* the vCPU's flush queue holds a flush */
bool kick[N];      /* the host's IPI is on its way to that vCPU's pCPU */
bool slack[N];     /* ...and the vCPU may run one more guest step first */
byte acks;         /* kicks the caller's host thread waits for */
bool finished;

/* vCPU 0: the guest's flush, then the host's handler of the call on the
 * same thread. */
active proctype caller()
{
	byte f, t, old, gen;

	mode[0] = IN;
	do
	:: f < FLUSHES ->
		atomic { pt++; gen = pt };
		tlb[0] = pt;   /* core_local_flush */
		mode[0] = OUT; /* the call exits to the host */
		t = 1;
		do
		:: t < N ->
#ifdef FAULT_DROP_TARGET
			if
			:: t == N - 1 -> goto next
			:: else -> skip
			fi;
#endif
			req[t] = true; /* push to its flush queue */
			atomic { /* kvm_vcpu_exiting_guest_mode */
				old = mode[t];
				if
				:: old == IN -> mode[t] = EXITING
				:: else -> skip
				fi
			};
			if
			:: old != OUT -> atomic { kick[t] = true; slack[t] = true; acks++ }
			:: else -> skip /* flushed before it enters */
			fi;
next:			t++
		:: else -> break
		od;
#ifndef FAULT_NO_WAIT
		(acks == 0); /* hv_post's wait */
#endif
		done = gen;
		mode[0] = IN; /* back in the guest */
		assert(tlb[0] >= done);
		f++
	:: else -> break
	od;
	finished = true
}

/* vCPU t: its thread in KVM, and its pCPU taking the host's IPI. */
proctype vcpu(byte t)
{
end:	do
	:: mode[t] == OUT && !kick[t] ->
		/* vcpu_enter_guest / sim_hv_vcpu_entry: service the queue, set
		 * the mode and check again */
		if
		:: req[t] -> atomic { req[t] = false; tlb[t] = pt }
		:: else -> skip
		fi;
		mode[t] = IN;
		if
		:: req[t] -> mode[t] = OUT /* a request raced in: back out */
		:: else -> skip
		fi
	:: atomic { mode[t] != OUT && (!kick[t] || slack[t]) ->
		/* guest code; EXITING is only a flag until the IPI lands */
		assert(tlb[t] >= done); slack[t] = false }
	:: mode[t] != OUT -> mode[t] = OUT /* a VM exit of its own */
	:: atomic { kick[t] && mode[t] != OUT -> mode[t] = OUT };
		/* sim_hv_on_kick: the IPI lands while the vCPU runs: it exits,
		 * the host invalidates its TLB on the pCPU, acknowledges */
		atomic { if
			:: req[t] -> req[t] = false; tlb[t] = pt
			:: else -> skip
			fi };
		atomic { kick[t] = false; acks-- }
	:: atomic { kick[t] && mode[t] == OUT ->
		/* lands outside the guest: acknowledged, and the vCPU
		 * flushes its queue before it enters */
		kick[t] = false; acks-- }
	od
}

init
{
	atomic { run vcpu(1); run vcpu(2) }
}

ltl live { ([] (req[1] -> <> !req[1])) && ([] (req[2] -> <> !req[2])) && <> finished }
