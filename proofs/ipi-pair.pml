/*
 * proofs/ipi-pair.pml: two IPI shootdowns in flight at once, from two
 * CPUs, each of which takes the other's IPI while it waits.
 *
 * Models, in the C (as ipi.pml, which has one initiator):
 *   src/core/flusher.c:core_ipi_shootdown   local flush, send, wait
 *   src/sim/guest-irq.c:handle_ipi, sim_ack_post, sim_guest_on_ack
 *   src/sim/guest-irq.c:sim_ipi_mailbox_free_at   one request slot per
 *       sender and target (guest.ipi_mailbox): a sender waits for its
 *       slot at the target to be free before it writes the next request
 * and Linux's smp_call_function_many_cond: per-CPU call slots (csd),
 * csd_lock_wait, and a waiting initiator that keeps interrupts on.
 *
 * What this adds to ipi.pml: a CPU waiting for its acknowledgements must
 * go on taking flush IPIs, or two CPUs flushing at each other deadlock;
 * two flushes' generations interleave.
 *
 * Abstraction as in ipi.pml (one page). Properties: no use of a
 * translation older than a returned flush (assert); no deadlock (invalid
 * end states); liveness (ltl live): every initiator's wait ends, under
 * weak fairness. The deadlock of NO_IRQ_WAIT leaves vCPU 2 running, so
 * it is not an invalid end state but a wait that never ends: a liveness
 * variant, checked with pan -a -f.
 *
 * Bounds: N = 3 vCPUs; vCPUs 0 and 1 each flush FLUSHES = 1 time, to
 * both others; vCPU 2 only takes IPIs. NO_IRQ_WAIT (not an oracle fault)
 * waits with interrupts off: the deadlock needs the two initiators only.
 *
 * Variants: FAULT_NO_WAIT
 * Liveness variants: NO_IRQ_WAIT
 */
#define N 3
#define INITIATORS 2
#define FLUSHES 1

byte pt, done;
byte tlb[N];
bool ipi[N * N];   /* ipi[from * N + to]: the call slot of from at to */
byte acks[N];      /* acknowledgements each initiator waits for */
byte finished;

/* handle_ipi for one pending request: flush, then acknowledge */
inline take_ipi(me)
{
	if
	:: atomic { ipi[0 * N + me] -> s = 0 }
	:: atomic { ipi[1 * N + me] -> s = 1 }
	:: atomic { ipi[2 * N + me] -> s = 2 }
	fi;
	tlb[me] = pt;
	atomic { ipi[s * N + me] = false; acks[s]-- }
}

#define PENDING(me) (ipi[0 * N + me] || ipi[1 * N + me] || ipi[2 * N + me])

proctype cpu(byte me)
{
	byte f, t, s, gen;

	if
	:: me >= INITIATORS -> f = FLUSHES
	:: else -> skip
	fi;
end:	do
	:: !PENDING(me) -> assert(tlb[me] >= done) /* guest code; an IPI
		   sent between the test and the use lands after it */
	:: PENDING(me) -> take_ipi(me)
	:: f < FLUSHES ->
		atomic { pt++; gen = pt };
		tlb[me] = pt; /* the local flush */
		t = 0;
		do
		:: t == me -> t++
		:: t < N && t != me ->
			/* wait for the slot (taking IPIs meanwhile), then send */
			do
			:: !ipi[me * N + t] -> break
#ifndef NO_IRQ_WAIT
			:: PENDING(me) -> take_ipi(me)
#endif
			od;
			atomic { ipi[me * N + t] = true; acks[me]++ };
			t++
		:: t >= N -> break
		od;
#ifndef FAULT_NO_WAIT
		do
		:: acks[me] == 0 -> break
#ifndef NO_IRQ_WAIT
		:: PENDING(me) -> take_ipi(me)
#endif
		od;
#endif
		atomic { if :: gen > done -> done = gen :: else fi };
		f++;
		if
		:: f == FLUSHES -> finished++
		:: else -> skip
		fi
	od
}

init
{
	atomic { run cpu(0); run cpu(1); run cpu(2) }
}

ltl live { ([] (acks[0] > 0 -> <> (acks[0] == 0))) && ([] (acks[1] > 0 -> <> (acks[1] == 0))) }
