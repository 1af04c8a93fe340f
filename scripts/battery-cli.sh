#!/usr/bin/env bash
# Whether two builds of hvtlb behave the same on `sweep` and `validate`:
# runs a battery of small invocations (a few seconds each) with each and
# compares, byte for byte, their stdout, stderr, exit status and every file
# they write (CSV, JSON lines, SVG). JSON "commit" members are blanked, as
# they name the build. For a change that should not change behaviour, such
# as moving code between files.
#
#   scripts/battery-cli.sh OLD NEW     each an hvtlb binary or a directory
#                                      that --record filled
#   scripts/battery-cli.sh --record HVTLB DIR
#
# Exit: 0 the same, 1 a difference (shown as diff -r output), 2 usage.
# Both runs read the scenarios and validation cases of this tree
# (HVTLB_DATA_DIR), so that paths in messages agree.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
export HVTLB_DATA_DIR=$root
S=$root/scenarios
V=$root/validation
small="--set workload.iterations=50"
# validate: two calibration cases and two validation cases (one with
# observables), each cut to a few iterations
vsmall="--quick --uncertainty 3 --set workload.iterations=10"
vcases="$V/seed000-hyperv-16vcpu.ini $V/seed001-kvm-12on12.ini"
vobs="$V/kvm-boost-ebizzy-2vm.ini $V/kvm-lazytlb-pthread-mmap.ini"

# name, then the command: $H is the hvtlb under test, the working
# directory a fresh one whose files are kept.
cases() {
	cat <<EOF
help		\$H sweep --help
plain		\$H sweep default --vary vm.vcpus=4,8 $small
output		\$H sweep default --vary vm.vcpus=4,8 $small -o out.csv
svg		\$H sweep default --vary vm.vcpus=4,8 $small --svg plot.svg
svg-log		\$H sweep default --vary vm.vcpus=2,4,8 $small --svg p.svg --metric ipis_sent --log-x --log-y
svg-cat		\$H sweep default --vary guest.os=linux,windows $small --svg cat.svg --metric latency_us_p99
two-axis	\$H sweep default --vary vm.vcpus=4,8 --vary strategy=ipi,hyperv $small --svg two.svg
three-axis	\$H sweep default --vary vm.vcpus=2,4 --vary machine.pcpus=4,8 --vary seed=1,2 $small --svg three.svg
compare		\$H sweep default --vary vm.vcpus=2,4 --set compare=ipi,hyperv,kvm-pv $small --svg cmp.svg
seed		\$H sweep default --vary vm.vcpus=4 --seed 7 $small -j 1
bands		\$H sweep default --vary vm.vcpus=4,8 $small --uncertainty 3 --svg band.svg
stdin		\$H sweep - --vary vm.vcpus=4,8 $small < $S/default.ini
violations	\$H sweep oracle-stress --vary vm.vcpus=4 --set workload.iterations=20
shards		\$H sweep default --vary vm.vcpus=2,4,8 --vary strategy=ipi,hyperv $small --shard 0/2 -o s0.jsonl; echo rc=\$?; \$H sweep default --vary vm.vcpus=2,4,8 --vary strategy=ipi,hyperv $small --shard 1/2 > s1.jsonl; echo rc=\$?; sed 's/"commit":"[^"]*"/"commit":""/' s0.jsonl s1.jsonl; \$H sweep --merge s1.jsonl s0.jsonl --svg m.svg -o merged.csv; echo rc=\$?; \$H sweep --merge - s0.jsonl < s1.jsonl; echo rc=\$?; \$H sweep --merge s0.jsonl; echo rc=\$?; \$H sweep --merge s0.jsonl s1.jsonl s0.jsonl; echo rc=\$?; \$H sweep --merge s0.jsonl s1.jsonl --svg x.svg --metric ops_per_s; echo rc=\$?
shard-bands	\$H sweep default --vary vm.vcpus=4,8 --set compare=ipi,hyperv $small --uncertainty 3 --shard 1/2 > b1.jsonl; \$H sweep default --vary vm.vcpus=4,8 --set compare=ipi,hyperv $small --uncertainty 3 --shard 0/2 > b0.jsonl; sed 's/"commit":"[^"]*"/"commit":""/' b0.jsonl b1.jsonl; \$H sweep --merge b0.jsonl b1.jsonl --svg mb.svg --metric latency_us_p99 --log-y
shard-empty	\$H sweep default --vary vm.vcpus=4 $small --shard 3/4
merge-junk	printf 'not json\n' > j; \$H sweep --merge j; echo rc=\$?; printf '{"point":0}\n' > k; \$H sweep --merge k; echo rc=\$?; : > e; \$H sweep --merge e; echo rc=\$?; \$H sweep --merge nosuch
merge-args	\$H sweep --merge; echo rc=\$?; \$H sweep --merge --vary a=1 x
e-noscenario	\$H sweep
e-two		\$H sweep default default --vary vm.vcpus=1
e-vary		\$H sweep default --vary vm.vcpus
e-vary-twice	\$H sweep default --vary vm.vcpus=1 --vary vm.vcpus=2
e-vary-key	\$H sweep default --vary vm.vcpuz=1,2
e-vary-value	\$H sweep default --vary vm.vcpus=4,x $small
e-vary-strategy	\$H sweep default --vary strategy=ipi,hypervv $small
e-set-compare	\$H sweep default --vary vm.vcpus=4 --set compare=ipi,hypervv $small
e-metric	\$H sweep default --vary vm.vcpus=4 --svg x.svg --metric real
e-metric-nosvg	\$H sweep default --vary vm.vcpus=4 --metric real_s
e-log-nosvg	\$H sweep default --vary vm.vcpus=4 --log-y
e-svg-shard	\$H sweep default --vary vm.vcpus=4 --svg x.svg --shard 0/2
e-svg-novary	\$H sweep default --svg x.svg
e-svg-path	\$H sweep default --vary vm.vcpus=4 $small --svg /nonexistent/x.svg
e-svg-edom	\$H sweep default --vary vm.vcpus=4,8 $small --svg x.svg --metric violations --log-y
e-shard		\$H sweep default --vary vm.vcpus=4 --shard 2/2; echo rc=\$?; \$H sweep default --vary vm.vcpus=4 --shard x
e-jobs		\$H sweep default --vary vm.vcpus=4 -j 0
e-uncertainty	\$H sweep default --vary vm.vcpus=4 --uncertainty 0
e-seed		\$H sweep default --vary vm.vcpus=4 --seed x
e-output-twice	\$H sweep default --vary vm.vcpus=4 -o a -o b
e-grid		\$H sweep default --vary vm.vcpus=1,2,3,4,5,6,7,8,9 --vary machine.pcpus=1,2,3,4,5,6,7,8 --vary seed=1,2,3,4,5,6,7,8 --vary workload.iterations=1,2,3,4,5,6,7,8
e-noscenario-file	\$H sweep nosuch --vary vm.vcpus=4
v-help		\$H validate --help
v-table		\$H validate $vsmall $vcases $vobs
v-json		\$H validate $vsmall --json -o v.json $vcases $vobs
v-seed		\$H validate $vsmall --seed 3 --fail-on-miss --json $vcases
v-converge	\$H validate --quick --uncertainty 20 --converge --set workload.iterations=10 $V/seed001-kvm-12on12.ini
v-badcase	\$H validate $vsmall $S/default.ini $V/seed001-kvm-12on12.ini; echo rc=\$?; \$H validate $vsmall --json $S/default.ini $V/seed001-kvm-12on12.ini
v-nocase	\$H validate $vsmall $S/default.ini
v-errors	\$H validate nosuch; echo rc=\$?; \$H validate --uncertainty 0; echo rc=\$?; \$H validate --threads 0; echo rc=\$?; \$H validate --seed x
EOF
}

record() {
	local h=$1 out=$2 name cmd
	h=$(cd "$(dirname "$h")" && pwd)/$(basename "$h")
	mkdir -p "$out"
	while IFS=$'\t' read -r name cmd; do
		cmd=${cmd#"${cmd%%[!$'\t']*}"}
		mkdir -p "$out/$name"
		(cd "$out/$name" && H=$h bash -c "$cmd" >.stdout 2>.stderr \
			</dev/null; echo $? >.rc) || true
		# the commit a JSON document names is the build's, not a result
		find "$out/$name" -type f -name '*.json*' -o -type f -name .stdout |
			xargs -r sed -i 's/"commit":"[^"]*"/"commit":""/g'
	done < <(cases)
}

if [ "${1:-}" = --record ] && [ $# -eq 3 ]; then
	record "$2" "$3"
	exit 0
fi
if [ $# -ne 2 ]; then
	sed -n '2,/^set/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
	exit 2
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
dirs=()
for i in 1 2; do
	a=${!i}
	if [ -d "$a" ]; then
		dirs+=("$a")
	else
		record "$a" "$tmp/$i"
		dirs+=("$tmp/$i")
	fi
done
if diff -r "${dirs[0]}" "${dirs[1]}"; then
	echo "battery-cli: $(cases | wc -l) cases, the same" >&2
	exit 0
fi
exit 1
