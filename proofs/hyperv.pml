/*
 * proofs/hyperv.pml: the Hyper-V flush hypercall (strategy "hyperv") and
 * the host's kick and wait, as KVM implements HvFlushVirtualAddressSpace.
 *
 * Models, in the C:
 *   src/core/strategy-hyperv.c:hyperv_flush, map_vps   the guest names
 *       its targets by VP index (hv_cpu_number_to_vp_number in Linux)
 *   src/sim/hypervisor.c:sim_op_hypercall, vps_of   the host decodes the VP
 *       set into vCPUs
 *   src/sim/hypervisor.c:hv_post   push to each target's flush queue,
 *       flush the caller's own TLB, kick the running targets and wait for
 *       their acknowledgement
 *   src/sim/hypervisor.c:sim_hv_on_kick, sim_hv_vcpu_entry, vcpu_service_fq
 *       a kicked vCPU exits; a vCPU flushes its queue before it enters
 * and KVM's kvm_hv_flush_tlb -> kvm_make_vcpus_request_mask with
 * KVM_REQUEST_WAIT, kvm_vcpu_exiting_guest_mode, vcpu_enter_guest.
 *
 * KVM's wait is for the kicked vCPU to leave guest mode, not for its
 * flush: a vCPU outside guest mode uses no translation, and it flushes
 * its request before it enters again (entry sets IN_GUEST_MODE, then
 * re-checks its requests and backs out if one arrived).
 *
 * Faults:
 *   FAULT_HOST_NO_WAIT  the host returns without waiting for the kicked
 *       vCPUs: KVM 0baedd792713 lost KVM_REQUEST_WAIT on this request;
 *       1ebfaa11ebb5 (Dec 2021) restored it, after the TLFS, which
 *       requires the flush to be complete when the call returns
 *   FAULT_VP_AS_CPU  the guest puts CPU numbers where VP indexes belong
 *       (Linux 86c48271e0d6 fixed such a confusion); the host here numbers
 *       VPs with an offset (KVM_CAP_HYPERV_VP_INDEX allows any numbering)
 *
 * Abstraction as in ipi.pml: pt the page's generation, tlb[v] what vCPU
 * v caches, done the newest generation whose flush returned.
 *
 * Properties: a vCPU in guest mode never uses a translation older than a
 * returned flush (assert); no deadlock (invalid end states); liveness
 * (ltl live): every posted request is serviced, and the caller finishes.
 *
 * Bounds: N = 3 vCPUs, VP index = (CPU + 1) mod 3; vCPU 0 makes FLUSHES =
 * 2 hypercalls in a row naming CPUs 1 and 2 (a VP set without the
 * caller). vp-as-cpu then names VPs 1 and 2, vCPUs 0 and 1: vCPU 2 is
 * missed; host-no-wait needs one target in guest mode at the return.
 *
 * Variants: FAULT_HOST_NO_WAIT FAULT_VP_AS_CPU
 */
#define N 3
#define FLUSHES 2
#define VP_OFFSET 1
#define OUT 0       /* OUTSIDE_GUEST_MODE */
#define IN 1        /* IN_GUEST_MODE */
#define EXITING 2   /* EXITING_GUEST_MODE: kicked */

byte pt;
byte tlb[N];
byte done;
byte mode[N];      /* KVM vcpu->mode */
bool req[N];       /* KVM_REQ_TLB_FLUSH_GUEST: the flush queue holds a flush */
bool kick[N];      /* the host's kick IPI is on its way to that vCPU's CPU */
bool slack[N];     /* ...and the vCPU may run one more guest step before
                      it lands (the IPI's latency) */
byte acks;         /* kicks the caller's host thread waits for */
bool finished;

#define VP_OF_CPU(c) (((c) + VP_OFFSET) % N)
#define VCPU_OF_VP(p) (((p) + N - VP_OFFSET) % N)

/* vCPU 0: the guest's flush_tlb_mm_range -> hyperv_flush_tlb_multi, then
 * KVM's handler of the hypercall on the same thread. */
active proctype caller()
{
	byte f, c, vp, t, old, gen;

	mode[0] = IN;
	do
	:: f < FLUSHES ->
		atomic { pt++; gen = pt };
		tlb[0] = pt; /* the guest's local flush */
		mode[0] = OUT; /* the hypercall exits */
		c = 1;
		do
		:: c < N ->
#ifdef FAULT_VP_AS_CPU
			vp = c;
#else
			vp = VP_OF_CPU(c);
#endif
			/* host: the vCPU with that VP index */
			t = VCPU_OF_VP(vp);
			if
			:: t == 0 -> tlb[0] = pt /* the caller's own flush */
			:: else ->
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
				:: else -> skip /* flushes before it enters */
				fi
			fi;
			c++
		:: else -> break
		od;
#ifndef FAULT_HOST_NO_WAIT
		(acks == 0); /* KVM_REQUEST_WAIT */
#endif
		done = gen;
		mode[0] = IN; /* back in the guest */
		assert(tlb[0] >= done);
		f++
	:: else -> break
	od;
	finished = true
}

/* vCPU t's thread in KVM: enter, run guest code, exit. */
proctype vcpu(byte t)
{
end:	do
	:: mode[t] == OUT ->
		/* vcpu_enter_guest: service requests, then set the mode and
		 * check again */
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
		/* guest code: EXITING is only a flag, the CPU stays in
		 * guest mode until the kick lands */
		assert(tlb[t] >= done); slack[t] = false }
	:: mode[t] != OUT ->
		/* a VM exit, spontaneous or by the kick; the kick IPI is
		 * acknowledged once the CPU is out of guest mode */
		atomic {
			mode[t] = OUT;
			if
			:: kick[t] -> kick[t] = false; acks--
			:: else -> skip
			fi
		}
	od
}

init
{
	atomic { run vcpu(1); run vcpu(2) }
}

ltl live { ([] (req[1] -> <> !req[1])) && ([] (req[2] -> <> !req[2])) && <> finished }
