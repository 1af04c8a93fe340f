/* SPDX-License-Identifier: MIT */
/*
 * A reader of the ftrace text format: the tracefs `trace` file and what
 * `trace-cmd report` prints. Internal to hvtlb's tool, tests and fuzz
 * targets (not part of libhvtlb): only libc under it.
 *
 * The reader takes a buffer and its length (never a C string: a trace may
 * hold NUL bytes and need not end in a newline) and hands out one record
 * per event line. Every text field of a record is a span into that buffer,
 * so the buffer must outlive the records. Comment lines ('#'), blank
 * lines and trace-cmd's header lines are skipped; events the reader does
 * not know are skipped and counted. A line it cannot read stops it with
 * a message naming the line and the byte offset.
 *
 * Not thread-safe: one reader per thread.
 */
#ifndef HVTLB_REPLAY_TRACE_TEXT_H
#define HVTLB_REPLAY_TRACE_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Bound on a CPU number, in the CPU column and in every cpumask. */
#define TRACE_MAX_CPUS 1024
#define TRACE_MASK_WORDS (TRACE_MAX_CPUS / 64)

/* The events the reader knows: id, system, name. */
#define TRACE_EVENT_MAP(X)                                                     \
	X(TLB_FLUSH, "tlb", "tlb_flush")                                       \
	X(IPI_SEND_CPUMASK, "ipi", "ipi_send_cpumask")                         \
	X(IPI_SEND_CPU, "ipi", "ipi_send_cpu")                                 \
	X(CSD_QUEUE_CPU, "csd", "csd_queue_cpu")                               \
	X(CSD_FUNCTION_ENTRY, "csd", "csd_function_entry")                     \
	X(CSD_FUNCTION_EXIT, "csd", "csd_function_exit")                       \
	X(CALL_FUNCTION_ENTRY, "irq_vectors", "call_function_entry")           \
	X(CALL_FUNCTION_EXIT, "irq_vectors", "call_function_exit")             \
	X(CALL_FUNCTION_SINGLE_ENTRY, "irq_vectors",                           \
	  "call_function_single_entry")                                        \
	X(CALL_FUNCTION_SINGLE_EXIT, "irq_vectors",                            \
	  "call_function_single_exit")                                         \
	X(SCHED_SWITCH, "sched", "sched_switch")                               \
	X(SCHED_WAKEUP, "sched", "sched_wakeup")                               \
	X(MMAP_LOCK_START_LOCKING, "mmap_lock", "mmap_lock_start_locking")     \
	X(MMAP_LOCK_ACQUIRE_RETURNED, "mmap_lock",                             \
	  "mmap_lock_acquire_returned")                                        \
	X(MMAP_LOCK_RELEASED, "mmap_lock", "mmap_lock_released")               \
	X(SYS_ENTER, "syscalls", "sys_enter")                                  \
	X(SYS_EXIT, "syscalls", "sys_exit")

enum trace_event {
#define TRACE_X_ENUM(id, sys, name) TRACE_EV_##id,
	TRACE_EVENT_MAP(TRACE_X_ENUM)
#undef TRACE_X_ENUM
		TRACE_EV_COUNT
};

/* tlb_flush reasons (enum tlb_flush_reason in the kernel); a trace may
 * hold any other number, which the reader keeps as it is. */
#define TRACE_TLB_REASON_MAP(X)                                                \
	X(0, "TLB_FLUSH_ON_TASK_SWITCH", "flush on task switch")               \
	X(1, "TLB_REMOTE_SHOOTDOWN", "remote shootdown")                       \
	X(2, "TLB_LOCAL_SHOOTDOWN", "local shootdown")                         \
	X(3, "TLB_LOCAL_MM_SHOOTDOWN", "local MM shootdown")                   \
	X(4, "TLB_REMOTE_SEND_IPI", "remote IPI send")                         \
	X(5, "TLB_REMOTE_WRONG_CPU", "remote wrong CPU")

/* A pointer field the kernel printed as "(____ptrval____)": %p before
 * the random key of pointer hashing is ready (early boot, or a machine
 * with no entropy source). Not null; its value is withheld, so two
 * hidden pointers cannot be told apart. */
#define TRACE_PTR_HIDDEN UINT64_MAX

/* A run of bytes inside the reader's buffer (not NUL-terminated). */
struct trace_span {
	const char *p;
	size_t len;
};

enum trace_line {
	TRACE_LINE_EVENT, /* an event the reader knows */
	TRACE_LINE_LOST,  /* "CPU:N [LOST M EVENTS]" */
};

struct trace_record {
	enum trace_line kind;
	enum trace_event event;
	struct trace_span comm; /* the task column; empty for LOST */
	int32_t pid;
	uint32_t cpu;
	/* Nanoseconds for a clock printed as seconds (local, global, mono,
	 * boot, ...); the clock's raw count with ts_raw (x86-tsc, counter:
	 * the unit is unknown). */
	uint64_t ts;
	bool ts_raw;
	uint64_t lost; /* TRACE_LINE_LOST: events the kernel dropped */
	union {
		struct {
			int32_t reason; /* TRACE_TLB_REASON_MAP or any */
			int64_t pages;	/* -1: the whole address space */
		} tlb;
		struct { /* ipi_send_cpumask, ipi_send_cpu */
			uint64_t mask[TRACE_MASK_WORDS];
			struct trace_span callsite, callback;
		} ipi;
		struct { /* csd_queue_cpu (cpu, callsite), entry/exit */
			uint32_t cpu;
			struct trace_span callsite, func;
			uint64_t csd; /* or TRACE_PTR_HIDDEN */
		} csd;
		struct { /* irq_vectors:call_function* */
			int32_t vector;
		} irq;
		struct {
			struct trace_span prev_comm, prev_state, next_comm;
			int32_t prev_pid, prev_prio, next_pid, next_prio;
		} sw;
		struct {
			struct trace_span comm;
			int32_t pid, prio;
			uint32_t target_cpu;
		} wake;
		struct {
			/* mm: TRACE_PTR_HIDDEN when withheld; memcg_id: 0
			 * where the kernel prints memcg_path (before 6.13) */
			uint64_t mm, memcg_id;
			bool write, success; /* success: acquire_returned */
		} lock;
		struct {
			struct trace_span name; /* "munmap" of sys_munmap */
			uint64_t args[6];
			unsigned nargs;
			uint64_t ret; /* SYS_EXIT, as printed (hex) */
		} sys;
	} u;
};

struct trace_reader {
	const char *buf;
	size_t len;
	size_t pos;	  /* start of the next line */
	uint64_t line;	  /* lines read, 1-based once one was */
	uint64_t unknown; /* event lines of events the reader skips */
	uint64_t events;  /* event lines returned */
	int clock_kind;	  /* 0 none yet, 1 seconds, 2 raw counter */
	/* A raw clock's counts per millisecond, from a "# hvtlb-clock-mhz:"
	 * line before the first event; 0: unknown (counts stay raw) */
	uint64_t clock_khz;
	uint64_t err_line; /* after an error: its line (1-based) */
	size_t err_byte;   /* and the offset in the buffer it names */
	char err[256];	   /* "line N (byte B): ..." */
};

/** Starts reading @p len bytes at @p buf (not copied). */
void trace_reader_init(struct trace_reader *r, const char *buf, size_t len);

/**
 * The next record. Returns 1 with @p rec filled, 0 at the end of the
 * buffer, or -EINVAL with r->err saying which line, which byte and why;
 * after an error, every further call returns -EINVAL again.
 */
int trace_reader_next(struct trace_reader *r, struct trace_record *rec);

/** The event's system and name ("tlb", "tlb_flush"); NULL out of range. */
const char *trace_event_system(enum trace_event ev);
const char *trace_event_name(enum trace_event ev);

/** The kernel's name of a tlb_flush reason, or NULL for another number. */
const char *trace_tlb_reason_name(int32_t reason);

/** Whether @p cpu is in @p mask (false past TRACE_MAX_CPUS). */
bool trace_mask_test(const uint64_t *mask, uint32_t cpu);

/** Whether @p s names the kernel's shootdown function flush_tlb_func
 *  ("flush_tlb_func" or "flush_tlb_func+0x0/0x1b0"). */
bool trace_is_flush_func(struct trace_span s);

#endif
