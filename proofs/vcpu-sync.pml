/*
 * proofs/vcpu-sync.pml: the library's flush queue and per-vCPU sync as a
 * VMM links them (tools/kvm-vmm: hv.c posts, vm.c runs the vCPU loop).
 *
 * Models, in the C:
 *   src/runtime/vcpu-sync.c:hvtlb_vcpu_flush_post, post_one, target_done
 *       push to the target's queue, take a ticket (posted + 1), set the
 *       request bit, read the mode: OUTSIDE_GUEST needs no wait;
 *       IN_GUEST is moved to EXITING by CAS; kick; then wait until
 *       acked >= ticket or the vCPU is outside the guest
 *   src/runtime/vcpu-sync.c:hvtlb_vcpu_sync_enter_guest   set IN_GUEST,
 *       re-check the requests, back out and service if any
 *   src/runtime/vcpu-sync.c:hvtlb_vcpu_sync_service   exchange the
 *       requests with 0, read posted, drain the queue, flush, store acked
 *   src/runtime/vcpu-sync.c:hvtlb_vcpu_sync_exit_guest
 *   src/runtime/flushq.c:hvtlb_flushq_push*, hvtlb_flushq_drain (under
 *       the queue's lock: one atomic step each here)
 *   tools/kvm-vmm/hv.c:kick   an interrupt that makes KVM_RUN exit
 *
 * This is a model of the C, not the C; the real functions are run in
 * every schedule up to a preemption bound, with the same properties and
 * variants, by tests/runtime/test-interleave.c (docs/verification.md, "The
 * real C").
 * Memory order: the model is sequentially consistent; vcpu-sync.c uses
 * seq_cst for every access the argument needs except acked
 * (release/acquire, which orders the flush before it) and the mode
 * store of exit_guest (release).
 *
 * Abstraction as in ipi.pml: pt the page's generation, tlb what the
 * vCPU caches, done the newest generation whose flush returned. q: the
 * queue holds a flush (the ranges do not matter here: a flush reloads
 * the page from the current page table).
 *
 * Properties: the vCPU never uses, inside KVM_RUN, a translation older
 * than a returned post (assert); no deadlock; liveness (ltl live): every
 * request is serviced and the posters finish, under weak fairness (a
 * thread outside KVM_RUN does not stay there forever).
 *
 * Bounds: 2 posting threads (say two vCPUs' hypercall handlers), 1 post
 * each (2 posts each: 2.3 million states, too slow for the suite), 1 target vCPU thread that enters and leaves KVM_RUN at will.
 * Faults and broken variants:
 *   FAULT_NO_WAIT     return without waiting (HVTLB_FLUSH_FAULT_NO_WAIT;
 *                     the oracle's no-wait)
 *   DONE_IF_EXITING   target_done takes EXITING for OUTSIDE_GUEST: the
 *                     kicked vCPU may still run guest code
 *   NO_RECHECK        enter_guest checks the requests before it sets
 *                     IN_GUEST instead of after (the race KVM's
 *                     vcpu_enter_guest closes the same way)
 * Each needs one post that races the vCPU's entry or exit. Acknowledging
 * before the flush in service is not a fault here: the vCPU thread
 * flushes before it enters the guest again, and the poster's wait also
 * ends when the vCPU is outside the guest (Spin finds no counterexample).
 *
 * Variants: FAULT_NO_WAIT DONE_IF_EXITING NO_RECHECK
 */
#define POSTERS 2
#define POSTS 1
#define OUTSIDE 0
#define IN_GUEST 1
#define EXITING 2

byte pt, tlb, done;
bool q;             /* the flush queue holds a flush */
byte posted, acked; /* tickets */
bool requests;      /* HVTLB_VCPU_REQ_TLB_FLUSH */
byte mode;          /* OUTSIDE at creation */
bool kick;          /* the kick's interrupt is on its way */
bool slack;         /* the guest may run one step before it lands */
byte finished;

proctype poster()
{
	byte n, gen, ticket, m;

	do
	:: n < POSTS ->
		atomic { pt++; gen = pt }; /* the change the flush is for */
		q = true;                    /* hvtlb_flushq_push */
		atomic { posted++; ticket = posted };
		requests = true;             /* atomic_fetch_or */
		m = mode;
		if
		:: m == OUTSIDE -> ticket = 0
		:: else ->
			if
			:: m == IN_GUEST ->
				atomic { if :: mode == IN_GUEST -> mode = EXITING :: else fi }
			:: else -> skip
			fi;
			atomic { kick = true; slack = true } /* ops->kick */
		fi;
#if defined(FAULT_NO_WAIT)
		skip;
#elif defined(DONE_IF_EXITING)
		(ticket == 0 || acked >= ticket || mode != IN_GUEST);
#else
		(ticket == 0 || acked >= ticket || mode == OUTSIDE); /* target_done */
#endif
		atomic { if :: gen > done -> done = gen :: else fi };
		n++
	:: else -> break
	od;
	finished++
}

inline service()
{
	atomic { r = requests; requests = false };
	if
	:: r ->
		seq = posted;
		atomic { if :: q -> q = false; tlb = pt :: else fi }; /* drain, ops->flush */
		acked = seq;
	:: else -> skip
	fi
}

active proctype vcpu()
{
	bool r;
	byte seq;

end:	do
	:: /* hvtlb_vcpu_sync_enter_guest */
		do
#ifdef NO_RECHECK
		:: !requests -> mode = IN_GUEST; break
		:: requests -> service()
#else
		:: mode = IN_GUEST;
			if
			:: !requests -> break
			:: else -> mode = OUTSIDE; service()
			fi
#endif
		od;
		/* KVM_RUN: guest code until an exit */
		do
		:: atomic { (!kick || slack) -> assert(tlb >= done); slack = false }
		:: break
		od;
		atomic { mode = OUTSIDE; kick = false } /* exit_guest */
	od
}

init
{
	atomic { run poster(); run poster() }
}

ltl live { ([] (requests -> <> !requests)) && <> (finished == POSTERS) }
