#!/bin/sh
# SPDX-License-Identifier: MIT
# Records the kernel events `hvtlb replay` reads while COMMAND runs, through
# tracefs directly (where `trace-cmd record` is refused), and saves the
# ftrace text (the `trace` file) to FILE.
#
# usage: scripts/record-trace.sh [-o FILE] [-d FILE.dat] [-b KB] [-c CLOCK] [-a] -- COMMAND [ARG...]
#   -o FILE   where the text goes (default trace.txt); FILE.gz is gzipped
#   -d FILE   also save the same events as trace-cmd's trace.dat (needs
#             trace-cmd; `trace-cmd extract` works where `record` is refused)
#   -b KB     ring buffer per CPU in KiB (default 8192); a full buffer drops
#             events, which the trace says as "CPU:N [LOST n EVENTS]"
#   -c CLOCK  trace clock (default local; see CLOCK in the trace_clock file:
#             global, mono, x86-tsc, counter, ...)
#   -a        every task on the machine, not only COMMAND and its threads
#             and children
#
# Needs root and tracefs (mounted at /sys/kernel/tracing, or set TRACEFS).
# It works in a private tracefs instance (instances/hvtlb-PID), so the
# global buffer, set_event and tracing_on of other users are left as they
# were; the instance is removed on exit, also on error or Ctrl-C.
#
# Without -a only events raised while one of COMMAND's tasks is running on
# a CPU are kept: a shootdown IPI that lands on a CPU running another task
# is then missing its receive side (hvtlb replay counts it as unpaired).
#
# `hvtlb record -o FILE [-d FILE.dat] [-b KB] [-c CLOCK] -- COMMAND` (the
# tool's own, tools/hvtlb/commands/cmd-record.c) records the same events the
# same way; this script stays for a machine without a build of the tool
# and for -a, which the tool does not take.
#
# Example:
#   sudo scripts/record-trace.sh -o traces/churn.txt -- build/traces/tlb-churn 2 200
set -eu

out=trace.txt
kb=8192
clock=local
all=0
dat=
while getopts o:d:b:c:a opt; do
	case $opt in
	o) out=$OPTARG ;;
	d) dat=$OPTARG ;;
	b) kb=$OPTARG ;;
	c) clock=$OPTARG ;;
	a) all=1 ;;
	*) sed -n 's/^# \{0,1\}//; 6,17p' "$0" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
if [ $# -eq 0 ]; then
	echo "record-trace.sh: no COMMAND (usage: record-trace.sh [-o FILE] -- COMMAND...)" >&2
	exit 2
fi

if [ -n "$dat" ] && ! command -v trace-cmd >/dev/null 2>&1; then
	echo "record-trace.sh: -d needs trace-cmd (Debian: trace-cmd)" >&2
	exit 2
fi

tracefs=${TRACEFS:-/sys/kernel/tracing}
if [ ! -e "$tracefs/instances" ]; then
	echo "record-trace.sh: no tracefs at $tracefs (mount -t tracefs nodev $tracefs)" >&2
	exit 1
fi

# What hvtlb replay reads; an event this kernel lacks is left out (an older
# kernel has no ipi:ipi_send_cpumask: the csd events stand in for it).
events="tlb:tlb_flush ipi:ipi_send_cpumask ipi:ipi_send_cpu
csd:csd_queue_cpu csd:csd_function_entry csd:csd_function_exit
irq_vectors:call_function_entry irq_vectors:call_function_exit
irq_vectors:call_function_single_entry irq_vectors:call_function_single_exit
sched:sched_switch sched:sched_wakeup
mmap_lock:mmap_lock_start_locking mmap_lock:mmap_lock_acquire_returned
mmap_lock:mmap_lock_released
syscalls:sys_enter_munmap syscalls:sys_exit_munmap
syscalls:sys_enter_madvise syscalls:sys_exit_madvise
syscalls:sys_enter_mprotect syscalls:sys_exit_mprotect
syscalls:sys_enter_mmap syscalls:sys_exit_mmap"

inst=$tracefs/instances/hvtlb-$$
cleanup() {
	if [ -d "$inst" ]; then
		echo 0 > "$inst/tracing_on" 2>/dev/null || true
		: > "$inst/set_event" 2>/dev/null || true
		rmdir "$inst" 2>/dev/null || true
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

mkdir "$inst"
echo 0 > "$inst/tracing_on"
echo "$kb" > "$inst/buffer_size_kb"
echo "$clock" > "$inst/trace_clock"
for e in $events; do
	sys=${e%%:*} name=${e#*:}
	if [ -d "$inst/events/$sys/$name" ]; then
		echo "$e" >> "$inst/set_event"
	else
		echo "record-trace.sh: this kernel has no $e; left out" >&2
	fi
done
if [ $all -eq 0 ]; then
	# New threads and children of a listed task join the list.
	echo 1 > "$inst/options/event-fork"
fi

# The command starts in a shell that first lists itself, then turns
# tracing on and becomes COMMAND (exec keeps the pid).
rc=0
INST=$inst ALL=$all sh -c '
	[ "$ALL" -eq 1 ] || echo $$ > "$INST/set_event_pid"
	echo 1 > "$INST/tracing_on"
	exec "$@"' record-trace "$@" || rc=$?
echo 0 > "$inst/tracing_on"

# x86-tsc prints bare counts: the rate Linux measured at boot goes first,
# as the line the reader converts them with (docs/replay.md).
head=
if [ "$clock" = x86-tsc ]; then
	mhz=$(dmesg 2>/dev/null | sed -n \
		-e 's/.*tsc: Refined TSC clocksource calibration: \([0-9.]*\) MHz.*/\1/p' \
		-e 's/.*tsc: Detected \([0-9.]*\) MHz processor.*/\1/p' | tail -n 1)
	if [ -n "$mhz" ]; then
		head=$(printf '# hvtlb-clock-mhz: %.3f' "$mhz")
	else
		echo "record-trace.sh: no TSC rate in dmesg; add a line" \
			"'# hvtlb-clock-mhz: MHZ' before replaying" >&2
	fi
fi
emit() { [ -z "$head" ] || echo "$head"; cat "$inst/trace"; }
case $out in
*.gz) emit | gzip -9 -n > "$out" ;;
*) emit > "$out" ;;
esac
echo "record-trace.sh: $(grep -vc '^#' "$inst/trace" || true) events to $out" \
	"(clock $clock, kernel $(uname -r), exit $rc)" >&2
if [ -n "$dat" ]; then
	# extract reads the instance's buffers as they are (and removes the
	# instance when done; cleanup then finds nothing to do).
	if ! trace-cmd extract -B "${inst##*/}" -o "$dat" >/dev/null 2>&1; then
		echo "record-trace.sh: trace-cmd extract failed; $out has the events" >&2
		exit 1
	fi
	echo "record-trace.sh: the same events as trace.dat to $dat" >&2
fi
exit $rc
