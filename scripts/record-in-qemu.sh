#!/bin/sh
# SPDX-License-Identifier: MIT
# Records a trace inside a QEMU guest with as many CPUs as asked, for a
# machine that has too few CPUs for a shootdown with several targets, or
# whose /dev/kvm cannot boot an ordinary kernel (a PVM host). The guest
# boots KERNEL with a small initramfs (busybox, chrt, tlb-churn and
# scripts/record-trace.sh), runs `record-trace.sh FLAGS -- chrt -f 1
# tlb-churn ARGS`, sends the gzipped trace back on a second serial port
# and powers off.
#
# usage: scripts/record-in-qemu.sh -k KERNEL -o FILE.txt.gz [-c CPUS]
#            [-f 'RECORD-FLAGS'] [-a ACCEL] [-l CONSOLE-LOG] [TLB-CHURN-ARGS...]
#   -k KERNEL  a bzImage with tracefs and the events (Linux 6.4 or later
#              for the ipi and csd events), e.g. Debian's
#              linux-image-6.12.*-cloud-amd64 from bookworm-backports,
#              unpacked with dpkg-deb -x
#   -c CPUS    the guest's CPUs (default 4)
#   -f FLAGS   record-trace.sh's flags (default -a)
#   -a ACCEL   QEMU's accelerator (default tcg,thread=multi: works on
#              any host; kvm where /dev/kvm runs an ordinary guest)
#   -l FILE    the guest's console, kept (default: removed)
#   TLB-CHURN-ARGS  threads, iterations, pages (default 3 100 8)
#
# Needs qemu-system-x86, busybox-static, gcc (for a static tlb-churn),
# util-linux's chrt and its libc (copied in). The trace's clock is the
# guest's `local` clock; under TCG its timing is the emulator's, not a
# processor's (traces/README.md).
set -eu

kernel='' out='' cpus=4 flags=-a accel=tcg,thread=multi log=''
while getopts k:o:c:f:a:l: opt; do
	case $opt in
	k) kernel=$OPTARG ;;
	o) out=$OPTARG ;;
	c) cpus=$OPTARG ;;
	f) flags=$OPTARG ;;
	a) accel=$OPTARG ;;
	l) log=$OPTARG ;;
	*) sed -n 's/^# \{0,1\}//; 11,21p' "$0" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
if [ -z "$kernel" ] || [ -z "$out" ]; then
	echo "record-in-qemu.sh: -k KERNEL and -o FILE are needed" >&2
	exit 2
fi
[ $# -gt 0 ] || set -- 3 100 8
for t in qemu-system-x86_64 busybox gcc chrt; do
	if ! command -v $t >/dev/null 2>&1; then
		echo "record-in-qemu.sh: no $t (Debian: qemu-system-x86," \
			"busybox-static, gcc, util-linux)" >&2
		exit 2
	fi
done

here=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
root=$work/root
mkdir -p "$root/bin" "$root/proc" "$root/sys" "$root/dev" "$root/tmp"
cp "$(command -v busybox)" "$root/bin/busybox"
gcc -static -O2 -pthread -o "$root/bin/tlb-churn" "$here/traces/tlb-churn.c"
cp "$here/scripts/record-trace.sh" "$root/bin/record-trace.sh"
# Debian's busybox has no chrt: util-linux's, with the libraries it loads.
cp "$(command -v chrt)" "$root/bin/chrt"
for lib in $(ldd "$(command -v chrt)" |
	sed -n 's/.*=> \(\/[^ ]*\) .*/\1/p; s/^[[:space:]]*\(\/[^ ]*\) .*/\1/p'); do
	mkdir -p "$root$(dirname "$lib")"
	cp "$lib" "$root$lib"
done

cat > "$root/init" <<EOF
#!/bin/busybox sh
/bin/busybox --install -s /bin 2>/dev/null
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mount -t tracefs nodev /sys/kernel/tracing
mount -t tmpfs tmp /tmp
cd /tmp
echo "record-in-qemu: \$(uname -r), \$(nproc) CPUs"
sh /bin/record-trace.sh $flags -o /tmp/t.txt.gz -- chrt -f 1 tlb-churn $*
echo "record-in-qemu: exit \$?"
base64 /tmp/t.txt.gz > /dev/ttyS1
sleep 3
poweroff -f
EOF
chmod +x "$root/init"
(cd "$root" && find . | busybox cpio -o -H newc 2>/dev/null) |
	gzip -1 > "$work/initrd.gz"

timeout 900 qemu-system-x86_64 -accel "$accel" \
	-cpu qemu64,+ssse3,+sse4.1,+sse4.2,+popcnt,+cx16 \
	-smp "$cpus" -m 1024 -kernel "$kernel" -initrd "$work/initrd.gz" \
	-append "console=ttyS0 panic=-1" -nographic -no-reboot \
	-serial "file:$work/console" -serial "file:$work/trace.b64" \
	-display none -monitor none > "$work/qemu.log" 2>&1 || true
[ -z "$log" ] || cp "$work/console" "$log"
grep -a '^record-' "$work/console" >&2 || true
# The serial line ends its lines with CR LF.
if ! tr -d '\r' < "$work/trace.b64" | base64 -d > "$out" ||
	! gzip -t "$out" 2>/dev/null; then
	echo "record-in-qemu.sh: no whole trace came back (console:" \
		"${log:-pass -l FILE to keep it})" >&2
	exit 1
fi
echo "record-in-qemu.sh: $(wc -c < "$out") bytes to $out" >&2
