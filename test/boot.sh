#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# make boot-test: tc on real kernels of other targets. qemu-user (make cross)
# emulates a target's CPU and system calls, not its kernel: perf_event_open,
# the rings and tracefs are this machine's. Here Debian's own kernel
# packages boot under qemu-system (TCG, x86-64 too: on one VM here KVM's
# -cpu host died at once, "failed to set MSR 0x10a", and with that
# feature off the guest printed nothing in 15 minutes), 2 vCPUs, with a busybox-static initramfs, and tc, built for the
# target (make cross/TRIPLET/tc), records there.
#
#   test/boot.sh KERNEL...          boot these (test/boot.sh --list)
#   test/boot.sh --all              every kernel of the table below
#   test/boot.sh --all --write-readme
#                                   and rewrite the README's "Tested on"
#                                   table from the results (with KERNEL...:
#                                   only their rows)
#   test/boot.sh --check-readme     only check that README's table is the
#                                   one the last --write-readme wrote
#
# For each kernel: the kernel and busybox-static packages of its
# architecture come from the package archive apt uses here (with a private
# apt state, so the system's is untouched), cached in TC_BOOT_CACHE
# (default /var/cache/tc-boot); tc and the workloads are built with
# make cross/TRIPLET/...; the initramfs's /init is test/boot-init.sh, which
# runs the tests there and sends back the results and the files on the
# serial console (see there). On the host:
#
#   - the target's own checks (record, summary, latency, script, tracefs
#     mount, idle recording, -I, flight recorder with a trigger, a stream
#     --record - | --replay -, --repair after kill -9, the live view);
#   - every file arrived whole (sha256);
#   - same_summary, same_latency, same_script: this machine's tc prints
#     byte for byte what the target printed, for every recording;
#   - perf_script: perf script reads every recording and finds as many
#     sched_switch events as tc;
#   - switch_chain: on each CPU, each sched_switch's prev_pid is the
#     previous one's next_pid (the kernel reported every switch);
#   - idle_lost: nothing lost on an idle guest (tc's stderr and --script);
#   - pingpong_switches: each pingpong task switched in at least 2000 times;
#   - io_exact: -I counted iorw's 15 calls, 7000 bytes read, 1665 written,
#     1 error (test/iorw.c);
#   - live_frame, live_help: the console's bytes, drawn by tmux at 80x24,
#     show tc's status line and a row per CPU, and after `?` the help.
#
# A boot has a timeout (TC_BOOT_TIMEOUT, default 900 s), and so has the live
# view: the guest's watchdog ends a live view not over 150 s after it began
# and says, through the kernel's log, where every task is.  A guest with
# nothing on its console for TC_BOOT_SILENT s (default 180; a whole boot
# takes 40-80), or not done 240 s after the q, gets sysrq w and l, and an
# NMI (x86: the blocked tasks, the CPUs' stacks and a panic, on the
# console), and so does one whose kernel's watchdog reported 4 soft
# lockups (a CPU stuck in the kernel for some 100 s). A guest that hung is
# booted once more, with the first boot's account left in the output; a
# second hang fails. Prints PASS/FAIL/SKIP lines, a table of
# kernels x checks and "N passed, N failed, N skipped". Failed kernels'
# files (console log, recordings) are kept and named.

set -u
cd "$(dirname "$0")/.." || exit 1
ROOT=$PWD
TC=$ROOT/tc
CACHE=${TC_BOOT_CACHE:-/var/cache/tc-boot}
BOOT_TIMEOUT=${TC_BOOT_TIMEOUT:-900}
BOOT_SILENT=${TC_BOOT_SILENT:-180}
README=$ROOT/README.md

# The kernels: name, Debian architecture, suite, kernel package (a
# metapackage: the image it depends on is fetched), the suite of its
# busybox-static (bullseye's busybox has no base64), qemu-system program,
# target triplet (make cross/TRIPLET/tc), console.
KERNELS='
arm64       arm64    bookworm linux-image-arm64     bookworm qemu-system-aarch64  aarch64-linux-gnu        ttyAMA0
armmp       armhf    bookworm linux-image-armmp     bookworm qemu-system-arm      arm-linux-gnueabihf      ttyAMA0
s390x       s390x    bookworm linux-image-s390x     bookworm qemu-system-s390x    s390x-linux-gnu          ttysclp0
amd64       amd64    bookworm linux-image-amd64     bookworm qemu-system-x86_64   x86_64-linux-gnu         ttyS0
i386        i386     bookworm linux-image-686       bookworm qemu-system-i386     i686-linux-gnu           ttyS0
riscv64     riscv64  trixie   linux-image-riscv64   trixie   qemu-system-riscv64  riscv64-linux-gnu        ttyS0
mips64el    mips64el bookworm linux-image-5kc-malta bookworm qemu-system-mips64el mips64el-linux-gnuabi64  ttyS0
mipsel      mipsel   bookworm linux-image-4kc-malta bookworm qemu-system-mipsel   mipsel-linux-gnu         ttyS0
amd64-5.10  amd64    bullseye linux-image-amd64     bookworm qemu-system-x86_64   x86_64-linux-gnu         ttyS0
arm64-5.10  arm64    bullseye linux-image-arm64     bookworm qemu-system-aarch64  aarch64-linux-gnu        ttyAMA0
'

# The machine and CPU for each kernel.
machine_of() {
	case $1 in
	arm64*) echo "-M virt -cpu cortex-a57" ;;
	armmp*) echo "-M virt,highmem=off -cpu cortex-a15" ;;
	s390x*) echo "-M s390-ccw-virtio" ;;
	amd64*) echo "-M pc -cpu max" ;;	# TCG (see above: not KVM)
	i386*) echo "-M pc -cpu max" ;;
	riscv64*) echo "-M virt -bios default" ;;
	mips64el*) echo "-M malta -cpu 5KEc" ;;
	mipsel*) echo "-M malta -cpu 34Kf" ;;
	esac
}

kernel_row() { echo "$KERNELS" | awk -v k="$1" '$1 == k'; }

usage() {
	echo "usage: test/boot.sh [--all] [--write-readme] [--check-readme] [--list] [KERNEL...]" >&2
	exit 2
}

SEL=() WRITE=0 CHECKONLY=0
for a; do
	case $a in
	--all) for k in $(echo "$KERNELS" | awk 'NF {print $1}'); do SEL+=("$k"); done ;;
	--write-readme) WRITE=1 ;;	# with some kernels: their rows
	--check-readme) CHECKONLY=1 ;;
	--list) echo "$KERNELS" | awk 'NF {print $1, $2, $3, $4, $6}'; exit 0 ;;
	-*) usage ;;
	*) [ -n "$(kernel_row "$a")" ] || { echo "boot.sh: unknown kernel $a (test/boot.sh --list)" >&2; exit 2; }
	   SEL+=("$a") ;;
	esac
done

npass=0 nfail=0 nskip=0
pass() { npass=$((npass + 1)); echo "PASS $1"; }
fail() { nfail=$((nfail + 1)); echo "FAIL $1: ${2:-failed}"; }
skip() { nskip=$((nskip + 1)); echo "SKIP $1: ${2:-skipped}"; }
note() { echo "  note: $*"; }

# --- the README's table: between these markers, written by --write-readme.
MARK_BEGIN='<!-- tested-on: written by make boot-test (test/boot.sh --all --write-readme); do not edit -->'
MARK_END='<!-- tested-on end -->'
readme_block() { awk -v b="$MARK_BEGIN" -v e="$MARK_END" '$0 == e { on = 0 } on; $0 == b { on = 1 }' "$README"; }

if [ "$CHECKONLY" = 1 ]; then
	# The table's rows are results: one per kernel with its checks.
	if ! grep -qxF "$MARK_BEGIN" "$README" || ! grep -qxF "$MARK_END" "$README"; then
		fail readme_table "README.md has no tested-on block"
	elif [ "$(readme_block | grep -c '^| [a-z]')" -lt 2 ]; then
		fail readme_table "README.md's tested-on block has no rows"
	else
		pass readme_table
	fi
	echo "$npass passed, $nfail failed, $nskip skipped"
	[ "$nfail" = 0 ]
	exit
fi

[ ${#SEL[@]} -gt 0 ] || usage
[ -x "$TC" ] || { echo "boot.sh: ./tc is not built (make tc)" >&2; exit 2; }
for c in cpio gzip tmux; do
	command -v $c >/dev/null || { echo "boot.sh: $c is missing (apt-get install $c)" >&2; exit 2; }
done

TMP=$(mktemp -d "${TMPDIR:-/tmp}/tc-boot.XXXXXX") || exit 1
KEEP=${TC_BOOT_KEEP:-0}	# TC_BOOT_KEEP=1: keep the files of every kernel
QPID=
cleanup() {
	[ -n "$QPID" ] && kill -KILL "$QPID" 2>/dev/null
	[ -n "${CATPID:-}" ] && kill "$CATPID" 2>/dev/null
	[ -n "${MCATPID:-}" ] && kill "$MCATPID" 2>/dev/null
	tmux -L tcboot$$ kill-server 2>/dev/null
	if [ "$KEEP" = 1 ]; then echo "boot.sh: files kept in $TMP"; else rm -rf "$TMP"; fi
}
trap cleanup EXIT
trap 'echo "boot.sh: interrupted"; exit 130' INT TERM HUP

# --- fetching: a private apt (sources from the archive the system's apt
# uses, the system's keyring), so that no foreign architecture is added to
# the system and its lists are untouched.
APTDIR=$CACHE/apt
MIRROR=${TC_BOOT_MIRROR:-$(apt-cache policy 2>/dev/null | awk '/ [a-z]+\/main (amd64|all) Packages/ && $2 ~ /^https?:/ && $2 !~ /security/ { print $2; exit }')}
APT=()
apt_setup() {
	local k suites archs s a
	[ -n "$MIRROR" ] || { echo "boot.sh: no Debian archive in apt's sources (set TC_BOOT_MIRROR)" >&2; exit 2; }
	mkdir -p "$APTDIR/lists/partial" "$APTDIR/cache/archives/partial" "$CACHE/debs" "$CACHE/kernels"
	: >"$APTDIR/sources.list.new"
	archs=$(for k in "${SEL[@]}"; do kernel_row "$k" | awk '{print $2}'; done | sort -u | paste -sd,)
	suites=$(for k in "${SEL[@]}"; do kernel_row "$k" | awk '{print $3; print $5}'; done | sort -u)
	for s in $suites; do
		a=$(for k in "${SEL[@]}"; do kernel_row "$k" | awk -v s="$s" '$3 == s || $5 == s {print $2}'; done | sort -u | paste -sd,)
		echo "deb [arch=$a signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $MIRROR $s main" >>"$APTDIR/sources.list.new"
	done
	mv "$APTDIR/sources.list.new" "$APTDIR/sources.list"
	APT=(-o "Dir::Etc::SourceList=$APTDIR/sources.list" -o Dir::Etc::SourceParts=/dev/null
	     -o "Dir::State::Lists=$APTDIR/lists" -o "Dir::Cache=$APTDIR/cache" -o Dir::State::status=/dev/null
	     -o Acquire::Languages=none -o Debug::NoLocking=1 -o APT::Sandbox::User=root -o "APT::Architectures=$archs")
	for a in ${archs//,/ }; do APT+=(-o "APT::Architectures::=$a"); done
	apt-get -q "${APT[@]}" update >"$TMP/apt-update.log" 2>&1 ||
		{ echo "boot.sh: apt-get update failed:"; tail -5 "$TMP/apt-update.log"; exit 2; }
}

# fetch_deb PACKAGE:ARCH/SUITE: the .deb's path in the cache (downloaded
# when it is not there). A metapackage is followed to the package it
# depends on, once.
fetch_deb() {
	local spec=$1 name arch suite ver file dep
	name=${spec%%:*} arch=${spec#*:} arch=${arch%/*} suite=${spec#*/}
	dep=$(apt-cache "${APT[@]}" show "$name:$arch/$suite" 2>/dev/null |
		awk -F': ' '/^Depends: linux-image-[0-9]/ { split($2, d, " "); print d[1]; exit }')
	[ -n "$dep" ] && name=$dep
	ver=$(apt-cache "${APT[@]}" show "$name:$arch/$suite" 2>/dev/null | awk '/^Version:/ { print $2; exit }')
	[ -n "$ver" ] || { echo "boot.sh: $name:$arch not in $suite" >&2; return 1; }
	file=$CACHE/debs/${name}_${ver//:/%3a}_$arch.deb
	if [ ! -s "$file" ]; then
		(cd "$CACHE/debs" && apt-get -q "${APT[@]}" download "$name:$arch=$ver" >"$TMP/download.log" 2>&1) ||
			{ echo "boot.sh: apt-get download $name:$arch=$ver failed: $(tail -1 "$TMP/download.log")" >&2; return 1; }
	fi
	[ -s "$file" ] || { echo "boot.sh: $file missing after download" >&2; return 1; }
	echo "$file"
}

# kernel_image DEB: the kernel image from a linux-image .deb (cached),
# decompressed where qemu does not (riscv64's Image.gz).
kernel_image() {
	local deb=$1 dir f
	dir=$CACHE/kernels/$(basename "$deb" .deb)
	if [ ! -s "$dir/image" ]; then
		rm -rf "$dir" && mkdir -p "$dir/x"
		dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$dir/x" --wildcards './boot/vmlinu*' './boot/config-*' || return 1
		f=$(ls "$dir"/x/boot/vmlinu* | head -1)
		if [ "$(head -c 2 "$f" | od -An -tx1 | tr -d ' ')" = 1f8b ]; then
			zcat "$f" >"$dir/image.new"
		else
			cp "$f" "$dir/image.new"
		fi
		cp "$dir"/x/boot/config-* "$dir/config"
		rm -rf "$dir/x"
		mv "$dir/image.new" "$dir/image"
	fi
	echo "$dir/image"
}

# io_rows SUMMARY COMM: "tid pid io_calls read_bytes write_bytes io_errors"
# of each task row named COMM (as test/t_io.sh).
io_rows() {
	awk -F'\t' -v want="$2" '
	BEGIN { n = split("tid pid io_calls read_bytes write_bytes io_errors", w, " ") }
	$1 == "tid" { for (i = 1; i <= NF; i++) col[$i] = i; blk = 1; next }
	$1 == "cpu" || $0 == "" { blk = 0; next }
	blk && $col["comm"] == want {
		line = ""
		for (i = 1; i <= n; i++)
			line = line (i > 1 ? " " : "") (w[i] in col ? $col[w[i]] : "MISSING")
		print line
	}' "$1"
}

# col_of SUMMARY TID COLUMN: a task row's column.
col_of() {
	awk -F'\t' -v t="$2" -v c="$3" '
	$1 == "tid" { for (i = 1; i <= NF; i++) col[$i] = i; blk = 1; next }
	$1 == "cpu" || $0 == "" { blk = 0; next }
	blk && $1 == t { print $col[c]; exit }' "$1"
}

# switch_chain SCRIPT: "switches_per_cpu breaks" from tc --script: on each
# CPU, a sched_switch whose prev_pid is not the previous one's next_pid is
# a break (a switch the kernel did not report), unless records were lost
# in between.
switch_chain() {
	awk '
	$3 == "lost" { for (c in last) lost[c] = 1; next }
	$3 != "sched_switch" { next }
	{
		p = n = ""
		for (i = 4; i <= NF; i++) {
			if ($i ~ /^prev_pid=/) p = substr($i, 10)
			if ($i ~ /^next_pid=/) n = substr($i, 10)
		}
		c = $2
		if (c in last && last[c] != p && !lost[c]) { bad++; if (!first) first = "cpu" c " at " $1 ": prev_pid " p " after next_pid " last[c] }
		last[c] = n; lost[c] = 0; sw[c]++
	}
	END {
		s = ""
		for (c = 0; c < 4096; c++) if (c in sw) s = s (s == "" ? "" : ",") "cpu" c ":" sw[c]
		printf "%s %d %s\n", s == "" ? "none" : s, bad, first
	}' "$1"
}

# render FILE: the terminal bytes of FILE as a vt100 of 80x24 shows them
# (tmux draws them), on stdout.
render() {
	local sock=tcboot$$ a='' b i
	TERM=vt100 tmux -L "$sock" -f /dev/null new-session -d -s r -x 80 -y 24 "cat '$1'; sleep 30"
	# drawn when two captures 0.2 s apart agree (a busy machine: up to 10 s)
	for i in $(seq 50); do
		sleep 0.2
		b=$(tmux -L "$sock" capture-pane -p -t r 2>/dev/null)
		[ -n "$b" ] && [ "$b" = "$a" ] && break
		a=$b
	done
	printf '%s\n' "$b"
	tmux -L "$sock" kill-server 2>/dev/null
}

declare -A WALL
# perf.data's magic as this machine writes it (PERFILE2, in its byte order).
HOST_MAGIC=$(printf PERFILE2 | { [ "$(printf '\1\0' | od -An -tu2 | tr -d ' ')" = 1 ] && cat || rev; })

# kpass/kfail/kskip K CHECK [WHY]: a result of kernel K.
kpass() { pass "$1: $2"; echo "PASS $2" >>"$TMP/$1.results"; }
kfail() { fail "$1: $2" "$3"; echo "FAIL $2: $3" >>"$TMP/$1.results"; KEEP=1; }
kskip() { skip "$1: $2" "$3"; echo "SKIP $2: $3" >>"$TMP/$1.results"; }
now_ms() { echo $(($(date +%s%N) / 1000000)); }
fsize() { stat -c %s "$1" 2>/dev/null || echo 0; }

# guest_dump: a hung guest's blocked tasks and CPU stacks (sysrq w and l)
# and an NMI (x86: a panic) on its console, through the monitor (MFD).
guest_dump() {
	printf 'sendkey alt-sysrq-w\n' >&"$MFD"
	sleep 5
	printf 'sendkey alt-sysrq-l\n' >&"$MFD"
	sleep 5
	printf 'nmi\n' >&"$MFD"
	sleep 10
}

# boot K: fetch, build, boot kernel K and check what comes back.
boot() {
	local k=$1 row debarch suite kpkg bbsuite qemu trip con kdeb bdeb image D smp t0 t1 st
	local live_off=0 key1=0 key2=0 live_t=0 help_t=0 done_t=0 q_t=0 timed_out=0 KFD MFD mem=1024
	local con_size=0 con_t silent=0 sz
	local append why_to
	row=$(kernel_row "$k")
	read -r _ debarch suite kpkg bbsuite qemu trip con <<<"$row"
	append="console=$con panic=-1 quiet loglevel=1"
	D=$TMP/$k
	mkdir -p "$D/root/bin" "$D/files" "$D/host"
	: >"$TMP/$k.results"
	echo "== $k: $kpkg ($debarch, $suite) on $qemu"
	command -v "$qemu" >/dev/null || { kfail "$k" boot "$qemu is not installed (apt-get install qemu-system-arm qemu-system-misc qemu-system-x86)"; return; }
	kdeb=$(fetch_deb "$kpkg:$debarch/$suite") || { kfail "$k" boot "no kernel package"; return; }
	bdeb=$(fetch_deb "busybox-static:$debarch/$bbsuite") || { kfail "$k" boot "no busybox-static package"; return; }
	image=$(kernel_image "$kdeb") || { kfail "$k" boot "no kernel image in $kdeb"; return; }
	echo "   $(basename "$kdeb"), $(basename "$bdeb")"
	if ! make -s "cross/$trip/tc" "cross/$trip/pingpong" "cross/$trip/spin" "cross/$trip/iorw" >"$D/make.log" 2>&1; then
		kfail "$k" boot "make cross/$trip/tc failed (the target's libc6-dev, libgcc-12-dev and binutils cross packages?): $(tail -3 "$D/make.log" | tr '\n' ' ')"
		return
	fi
	# /bin/busybox, /usr/bin/busybox in trixie
	dpkg-deb --fsys-tarfile "$bdeb" | tar -x -O --wildcards './bin/busybox' './usr/bin/busybox' >"$D/root/bin/busybox" 2>/dev/null
	[ -s "$D/root/bin/busybox" ] || { kfail "$k" boot "no bin/busybox in $bdeb"; return; }
	cp "cross/$trip/tc-stripped" "$D/root/bin/timechart"
	cp "cross/$trip/pingpong" "cross/$trip/spin" "cross/$trip/iorw" "$D/root/bin/"
	ln -s busybox "$D/root/bin/sh"
	cp test/boot-init.sh "$D/root/init"
	chmod 755 "$D/root/init" "$D/root/bin/busybox" "$D/root/bin/timechart" "$D/root/bin/pingpong" "$D/root/bin/spin" "$D/root/bin/iorw"
	(cd "$D/root" && find . | cpio -o -H newc -R 0:0 --quiet | gzip -1) >"$D/initrd.gz"
	smp=2
	grep -q '^CONFIG_SMP=y' "$(dirname "$image")/config" || smp=1
	[ "$smp" = 2 ] || note "$k: the kernel has no CONFIG_SMP: 1 vCPU"
	case $k in
	mips64el*)
		# The 5kc-malta kernel's SMP is MIPS_MT_SMP (VPEs of an MT
		# core); qemu has MT only on the 32-bit 34Kf, and a 64-bit
		# malta with -smp 2 prints nothing at all.
		smp=1
		note "$k: 1 vCPU (the kernel's SMP needs the MT extension, which none of qemu's 64-bit MIPS CPUs has)" ;;
	mipsel*)
		# 4kc-malta on a 34Kf with -smp 2 boots, but its second VPE
		# is stuck from the start ("soft lockup - CPU#1 stuck for
		# 21s! [migration/1:19]" at 22 s, before any tc) and the
		# guest never gets through the tests.
		smp=1
		note "$k: 1 vCPU (qemu's 34Kf with -smp 2: CPU 1 locks up during boot, before tc runs)" ;;
	esac
	case $k in mips*) mem=256 ;; esac
	# x86: on a hang, the monitor's sysrq keys w and l print the blocked
	# tasks and every CPU's stack, then its nmi makes the kernel panic
	case $k in amd64* | i386*) append="$append unknown_nmi_panic" ;; esac

	mkfifo "$D/con.in" "$D/con.out" "$D/mon.in" "$D/mon.out"
	t0=$(now_ms)
	# shellcheck disable=SC2046
	"$qemu" $(machine_of "$k") -smp "$smp" -m "$mem" -kernel "$image" -initrd "$D/initrd.gz" \
		-append "$append" \
		-display none -nodefaults -no-reboot \
		-chardev "pipe,id=mon,path=$D/mon" -mon chardev=mon,mode=readline \
		-chardev "pipe,id=con,path=$D/con" -serial chardev:con >"$D/qemu.log" 2>&1 &
	QPID=$!
	exec {KFD}<>"$D/con.in" {MFD}<>"$D/mon.in"
	cat "$D/mon.out" >/dev/null &
	MCATPID=$!
	: >"$D/console.log"
	cat "$D/con.out" >"$D/console.log" &
	CATPID=$!
	st=boot con_t=$t0
	while kill -0 "$QPID" 2>/dev/null; do
		t1=$(now_ms)
		if [ $((t1 - t0)) -gt $((BOOT_TIMEOUT * 1000)) ]; then timed_out=1; break; fi
		sz=$(fsize "$D/console.log")
		if [ "$sz" != "$con_size" ]; then
			con_size=$sz con_t=$t1
		elif [ "$st" != ended ] && [ $((t1 - con_t)) -gt $((BOOT_SILENT * 1000)) ]; then
			# nothing on the console for BOOT_SILENT s, where a
			# whole boot takes 40-80: hung (the amd64-5.10 guest
			# under TCG, once in some ten boots, silent after
			# its first replays, without a soft lockup)
			timed_out=1 st=hung silent=1
			guest_dump
			break
		fi
		if [ "$(grep -ac 'soft lockup - CPU' "$D/console.log")" -ge 4 ]; then
			# the guest's kernel stuck on a CPU for 4 of its
			# watchdog's periods (an amd64-5.10 guest under TCG, once
			# in three boots, for the whole 900 s): hung now
			timed_out=1 st=hung
			guest_dump
			break
		fi
		case $st in
		boot)
			if grep -aq 'BOOT-TEST LIVE-GO' "$D/console.log"; then
				live_off=$(grep -abo 'BOOT-TEST LIVE-GO' "$D/console.log" | head -1 | cut -d: -f1)
				live_t=$t1 st=live
			elif grep -aq 'BOOT-TEST DONE' "$D/console.log"; then
				done_t=$t1 st=ended
			fi ;;
		live)
			# The first frame is there: let it run 3 s, then ?.
			if tail -c +"$((live_off + 1))" "$D/console.log" | grep -aq 'tc live'; then
				sleep 3
				key1=$(fsize "$D/console.log")
				printf '?' >&"$KFD"
				help_t=$(now_ms) st=help
			elif [ $((t1 - live_t)) -gt 60000 ]; then
				q_t=$t1 st=boot2
			fi ;;
		help)
			if tail -c +"$((key1 + 1))" "$D/console.log" | grep -aq 'tc keys' || [ $((t1 - help_t)) -gt 30000 ]; then
				sleep 1
				key2=$(fsize "$D/console.log")
				printf 'q' >&"$KFD"
				q_t=$(now_ms) st=boot2
			fi ;;
		boot2)
			if grep -aq 'BOOT-TEST DONE' "$D/console.log"; then
				done_t=$t1 st=ended
			elif [ $((t1 - q_t)) -gt 240000 ]; then
				# the guest's watchdog (150 s after LIVE-GO) did
				# not end it either: the kernel is stuck
				timed_out=1 st=hung
				guest_dump
				break
			fi ;;
		ended)
			# poweroff should end qemu; some machines cannot.
			[ $((t1 - done_t)) -gt 10000 ] && break ;;
		esac
		sleep 0.5
	done
	kill -KILL "$QPID" 2>/dev/null
	wait "$QPID" 2>/dev/null
	QPID=
	exec {KFD}>&- {MFD}>&-
	sleep 0.2
	kill "$CATPID" "$MCATPID" 2>/dev/null
	wait "$CATPID" "$MCATPID" 2>/dev/null
	CATPID= MCATPID=
	t1=$(now_ms)
	[ "$timed_out" = 0 ] && grep -aq 'BOOT-TEST DONE' "$D/console.log" && st=ended
	if [ "$timed_out" = 1 ]; then
		echo "no end from the guest" >"$TMP/$k.hung"
	elif grep -aq 'BOOT-TEST FAIL live: not over after' "$D/console.log"; then
		echo "its watchdog ended the live view" >"$TMP/$k.hung"
	fi
	WALL[$k]=$(((t1 - t0 + 500) / 1000))
	echo "INFO boot_s ${WALL[$k]}" >>"$TMP/$k.results"

	tr -d '\r' <"$D/console.log" >"$D/console.txt"
	grep -ao 'BOOT-TEST INFO .*' "$D/console.txt" | sed 's/^BOOT-TEST //' >>"$TMP/$k.results"
	grep -ao 'BOOT-TEST INFO .*' "$D/console.txt" | sed 's/^BOOT-TEST INFO /   /'
	if [ "$timed_out" = 1 ]; then
		why_to="no end after ${BOOT_TIMEOUT} s (TC_BOOT_TIMEOUT): the guest hung"
		if grep -aq 'soft lockup - CPU' "$D/console.log"; then
			why_to="the guest's kernel stuck on a CPU (its watchdog's soft lockups, below, with the sysrq and nmi dump)"
		elif [ "$st" = hung ]; then
			why_to="no end 240 s after the live view's q, nor from the guest's watchdog"
			[ "$silent" = 1 ] && why_to="nothing on the console for ${BOOT_SILENT} s (TC_BOOT_SILENT)"
			why_to="$why_to: the guest's kernel hung (x86: the kernel's blocked tasks, CPU stacks and panic on the monitor's sysrq and nmi are below)"
			awk '/^\[ *[0-9]+\.[0-9]+\] (sysrq|Uhhuh)/ { on = 1 } on && /^\[ *[0-9]+\.[0-9]+\]/' "$D/console.txt" |
				head -400 | tr -dc '[:print:]\n' | sed 's/^/   hang: /'
		fi
		kfail "$k" boot "$why_to; the console's last lines: $(grep -a . "$D/console.txt" | tail -3 | tr -dc '[:print:] ' | tail -c 300)"
	elif [ "$st" != ended ]; then
		kfail "$k" boot "qemu ended before the tests did ($(tail -2 "$D/qemu.log" | tr '\n' ' ')), after $((t1 - t0)) ms; the console's last lines: $(grep -a . "$D/console.txt" | tail -3 | tr -dc '[:print:] ' | tail -c 300)"
	else
		kpass "$k" boot
	fi
	grep -q 'BOOT-TEST INFO uname' "$D/console.txt" || return

	# The target's own results.
	grep -ao 'BOOT-TEST \(PASS\|FAIL\|SKIP\) .*' "$D/console.txt" | sed 's/^BOOT-TEST //' | while read -r r rest; do
		case $r in
		PASS) echo "k$r ${rest%%:*}" ;;
		*) echo "k$r ${rest%%:*} ${rest#*: }" ;;
		esac
	done >"$D/guest.results"
	while read -r r c why; do
		case $r in kPASS) kpass "$k" "$c" ;; kFAIL) kfail "$k" "$c" "$why (on the target)" ;; kSKIP) kskip "$k" "$c" "$why" ;; esac
	done <"$D/guest.results"

	# The files: base64 of gzip between FILE and EOF, checked by sha256.
	awk -v dir="$D/files" '
	/^BOOT-TEST FILE / { name = $3; out = dir "/" name ".b64"; printf "" >out; on = 1; next }
	/^BOOT-TEST EOF / { if (on) { print $4 >(dir "/" $3 ".sha"); close(out) } on = 0; next }
	on && /^[A-Za-z0-9+\/=]+$/ { print >>out }
	' "$D/console.txt"
	local f n bad=''
	for f in "$D"/files/*.b64; do
		[ -e "$f" ] || continue
		n=$(basename "$f" .b64)
		base64 -d <"$f" 2>/dev/null | gunzip -c >"$D/files/$n" 2>/dev/null
		if [ ! -e "$D/files/$n.sha" ] || [ "$(sha256sum <"$D/files/$n" | cut -d' ' -f1)" != "$(cat "$D/files/$n.sha")" ]; then
			bad="$bad $n"
		fi
		rm -f "$f"
	done
	if [ -n "$bad" ]; then kfail "$k" files "damaged on the console:$bad"; else kpass "$k" files; fi

	host_checks "$k" "$D" "$key1" "$key2" "$live_off"
}

# host_checks K DIR KEY1 KEY2 LIVE_OFF: this machine's tc and perf on what
# the target sent.
host_checks() {
	local k=$1 D=$2 key1=$3 key2=$4 live_off=$5 F=$2/files H=$2/host
	local n m why_s='' why_l='' why_c='' why_p='' got want sw brk first rows pids p cpus
	local have_perf=1 perf_skip='' ft
	command -v perf >/dev/null || have_perf=0
	for n in rec idle io fl stream cut live; do
		[ -s "$F/$n.data" ] || continue
		timeout 120 "$TC" --replay "$F/$n.data" --summary >"$H/$n.summary" 2>"$H/$n.summary.err"
		timeout 120 "$TC" --replay "$F/$n.data" --summary --latency >"$H/$n.latency" 2>/dev/null
		timeout 120 "$TC" --replay "$F/$n.data" --script >"$H/$n.script" 2>/dev/null
		if [ "$n" != live ]; then	# the live view's recording is not replayed there
			cmp -s "$H/$n.summary" "$F/$n.summary" || why_s="$why_s $n"
			cmp -s "$H/$n.latency" "$F/$n.latency" || why_l="$why_l $n"
			cmp -s "$H/$n.script" "$F/$n.script" || why_c="$why_c $n"
		fi
		if [ "$have_perf" = 1 ] && [ "$n" = stream ] && [ "$(head -c 8 "$F/$n.data")" != "$HOST_MAGIC" ]; then
			# perf (6.1, and as of 6.x) reads the other byte order in a
			# file (perf_session__read_header sets evsel->needs_swap)
			# but not in a pipe-mode stream: perf_event__process_attr
			# leaves needs_swap unset, so a tracepoint's raw data is
			# not swapped back and every sample fails (-EFAULT).
			perf_skip="perf reads no pipe-mode stream of the other byte order (perf_event__process_attr leaves evsel->needs_swap unset: 'Can't parse sample, err = -14'); this machine's tc reads it (same_summary)"
		elif [ "$have_perf" = 1 ]; then
			if [ "$n" = stream ]; then
				timeout 120 perf script -i - <"$F/$n.data" >"$H/$n.perf" 2>"$H/$n.perf.err"
			else
				timeout 120 perf script -i "$F/$n.data" >"$H/$n.perf" 2>"$H/$n.perf.err"
			fi
			m=$?
			got=$(grep -c 'sched:sched_switch:' "$H/$n.perf")
			want=$(grep -c ' sched_switch ' "$H/$n.script")
			if [ "$m" != 0 ] || [ "$want" = 0 ] || [ "$got" != "$want" ]; then
				why_p="$why_p $n (exit $m, $got sched_switch, tc finds $want: $(head -c 200 "$H/$n.perf.err" | tr '\n' ' '))"
			fi
		fi
	done
	[ -s "$F/rec.data" ] || { kfail "$k" same_summary "no recording came back"; return; }
	if [ -z "$why_s" ]; then kpass "$k" same_summary; else
		kfail "$k" same_summary "this machine's tc --summary differs from the target's for:$why_s (diff $H/NAME.summary $F/NAME.summary)"; fi
	if [ -z "$why_l" ]; then kpass "$k" same_latency; else
		kfail "$k" same_latency "--summary --latency differs for:$why_l"; fi
	if [ -z "$why_c" ]; then kpass "$k" same_script; else
		kfail "$k" same_script "--script differs for:$why_c"; fi
	if [ "$have_perf" = 0 ]; then kskip "$k" perf_script "perf is not installed (linux-perf)";
	elif [ -z "$why_p" ]; then kpass "$k" perf_script; else kfail "$k" perf_script "$why_p"; fi
	[ -z "$perf_skip" ] || kskip "$k" perf_script_stream "$perf_skip"

	# Switches: a chain on each CPU, on the pingpong and the idle recording.
	cpus=$(awk '$1 == "INFO" && $2 == "cpus" { print $3 }' "$TMP/$k.results")
	why_s=''
	for n in rec idle live; do
		[ -s "$H/$n.script" ] || { why_s="$why_s $n: no recording;"; continue; }
		read -r sw brk first <<<"$(switch_chain "$H/$n.script")"
		echo "INFO switches_$n $sw breaks $brk" >>"$TMP/$k.results"
		note "$k: $n.data: sched_switch per CPU $sw, chain breaks $brk${first:+ (first: $first)}"
		[ "$brk" = 0 ] || why_s="$why_s $n: $brk switches whose prev_pid is not the CPU's previous next_pid ($first);"
		[ "$(echo "$sw" | tr ',' '\n' | grep -c '^cpu')" = "${cpus:-0}" ] ||
			why_s="$why_s $n: switches on $sw, the guest has ${cpus:-?} CPUs;"
	done
	if [ -z "$why_s" ]; then kpass "$k" switch_chain; else kfail "$k" switch_chain "$why_s"; fi

	# The command's last switch-out (after its exit) is in the recording:
	# tc's parent learns of the exit (SIGCHLD) before the exiting task's
	# last switch on its CPU, and waits for that switch before it stops
	# (and it leaves out what comes after the first of its events is off,
	# which it disables one ioctl at a time: under TCG the sched_switch
	# events of a CPU were off up to 80 ms before its cpu_idle events).
	why_s=''
	for n in rec io stream; do
		[ -s "$H/$n.script" ] || continue
		p=$(awk '$3 == "sched_process_exec" { for (i = 4; i <= NF; i++) if ($i ~ /^pid=/) { print substr($i, 5); exit } }' "$H/$n.script")
		[ -n "$p" ] || continue
		got=$(awk -v p="$p" '
			$3 == "sched_process_exit" && $NF == "pid=" p { t = $1; c = $2 }
			t && $3 == "sched_switch" && $0 ~ (" prev_pid=" p " ") { print "ok"; exit }
			END { if (t) print "missing exit at " t / 1e9 " s on cpu" c ", last record " last / 1e9 " s"; else print "noexit" }
			{ last = $1 }' "$H/$n.script" | head -1)
		case $got in ok|noexit) ;; *) why_s="$why_s $n: pid $p: $got;" ;; esac
	done
	if [ -z "$why_s" ]; then kpass "$k" exit_switch; else kfail "$k" exit_switch "$why_s"; fi

	# Nothing lost on an idle guest.
	if [ ! -s "$F/idle.err" ]; then kfail "$k" idle_lost "no idle recording";
	elif ! grep -q 'lost 0,' "$F/idle.err"; then kfail "$k" idle_lost "tc --record -d 2 on an idle guest: $(head -c 300 "$F/idle.err")";
	elif grep -q '^[0-9]* [0-9]* lost ' "$H/idle.script"; then kfail "$k" idle_lost "lost records in idle.data's --script";
	else kpass "$k" idle_lost; fi

	# pingpong 2000 on one CPU: each side switched in at least 2000 times.
	pids=$(awk '$1 == "pids" { print $2, $3 }' "$F/rec.out" 2>/dev/null)
	why_s=''
	[ -n "$pids" ] || why_s="pingpong printed no pids: $(head -c 200 "$F/rec.out" 2>/dev/null)"
	for p in $pids; do
		got=$(col_of "$H/rec.summary" "$p" switches)
		[ "${got:-0}" -ge 2000 ] || why_s="$why_s pid $p: ${got:-no} switches, want >= 2000;"
	done
	[ -z "$why_s" ] || why_s="$why_s tc: $(grep -o 'lost [0-9]*' "$F/rec.err" 2>/dev/null)"

	if [ -z "$why_s" ]; then kpass "$k" pingpong_switches; else kfail "$k" pingpong_switches "$why_s"; fi

	# -I: iorw's calls, exactly.
	if [ -s "$H/io.summary" ]; then
		rows=$(io_rows "$H/io.summary" iorw)
		got=$(echo "$rows" | awk 'NR == 1 { print $3, $4, $5, $6 }')
		ft=$(info "$k" ftrace_iorw)
		if [ "$(echo "$rows" | grep -c .)" = 1 ] && [ "$got" = "15 7000 1665 1" ]; then
			kpass "$k" io_exact
		elif [ "$got" = "15 7009 1665 0" ] &&
		     [ "$(awk '$3 == "sys_enter_read" && $5 == "fd=-1" { on = 1; next } on && $3 == "sys_exit_read" { print $5; exit }' "$H/io.script")" = ret=9 ]; then
			kskip "$k" io_exact "known: the kernel's sys_exit_read of read(-1) says ret=9, EBADF without its sign (MIPS returns an error in v0 with the a3 flag, and the tracepoint leaves the flag out): tc counts 9 bytes read and no error (15 7009 1665 0, want 15 7000 1665 1)"
		elif [ "$(echo "$ft" | awk '{print $2}')" = 0 ] && ! grep -q 'sys_enter [1-9]' "$F/io.err"; then
			kskip "$k" io_exact "known: this kernel fires no syscalls tracepoint for iorw (MIPS n64): the kernel's own trace has no sys_enter_read either (ftrace: $ft), tc recorded no sys_enter and says nothing about it"
		else
			kfail "$k" io_exact "iorw's io_calls read_bytes write_bytes io_errors: '$(echo "$rows" | tr '\n' ';')', want 15 7000 1665 1; tc said: $(head -c 300 "$F/io.err" 2>/dev/null)"
		fi
	else
		kfail "$k" io_exact "no -I recording"
	fi

	# The live view, as a vt100 of 80x24 shows the console's bytes.
	if [ "$key1" -gt 0 ]; then
		tail -c +"$((live_off + 1))" "$D/console.log" | head -c "$((key1 - live_off))" | sed '1s/^.*LIVE-GO//' >"$H/live1.bytes"
		render "$H/live1.bytes" >"$H/live1.screen"
		why_s=''
		grep -q '^ *tc live' "$H/live1.screen" || why_s="no 'tc live' status line;"
		for ((p = 0; p < ${cpus:-1}; p++)); do
			grep -q "^cpu$p " "$H/live1.screen" || why_s="$why_s no cpu$p row;"
		done
		grep -q 'pingpong' "$H/live1.screen" || why_s="$why_s no pingpong row;"
		if [ -z "$why_s" ]; then kpass "$k" live_frame; else kfail "$k" live_frame "$why_s the screen: $H/live1.screen"; fi
		if [ "$key2" -gt "$key1" ]; then
			tail -c +"$((live_off + 1))" "$D/console.log" | head -c "$((key2 - live_off))" | sed '1s/^.*LIVE-GO//' >"$H/live2.bytes"
			render "$H/live2.bytes" >"$H/live2.screen"
			if grep -q 'tc keys' "$H/live2.screen"; then kpass "$k" live_help; else
				kfail "$k" live_help "no help ('tc keys') on the screen after ?: $H/live2.screen"; fi
		else
			kfail "$k" live_help "q was not sent"
		fi
	else
		kfail "$k" live_frame "the live view never drew its status line ('tc live') on the console"
	fi
}

# --- the table: kernels x checks. A column is pass when all its checks
# passed, FAIL when one failed, skip when all were skipped.
COLS='record:record,tracefs_mount,idle_record summary:summary,same_summary latency:latency,same_latency
script:script,same_script -I:io_record,io_exact flight:flight,flight_replay stream:stream
repair:repair,repair_replay live:live,live_stty,live_reap,live_frame,live_help perf:perf_script,perf_script_stream
events:switch_chain,idle_lost,pingpong_switches,exit_switch'

cell() {
	local k=$1 checks=$2 c r f=0 s=0 p=0
	for c in ${checks//,/ }; do
		r=$(awk -v c="$c" '($1 == "PASS" && $2 == c) || (($1 == "FAIL" || $1 == "SKIP") && $2 == c ":") { print $1; exit }' "$TMP/$k.results")
		case $r in PASS) p=1 ;; FAIL) f=1 ;; SKIP) s=1 ;; esac
	done
	# A check that did not run (no boot, or not for this target) is none.
	if [ "$f" = 1 ]; then echo FAIL; elif [ "$p" = 1 ]; then echo pass; elif [ "$s" = 1 ]; then echo skip; else echo -; fi
}

info() { awk -v key="$2" '$1 == "INFO" && $2 == key { $1 = $2 = ""; sub(/^ +/, ""); print; exit }' "$TMP/$1.results"; }

table() {
	local k col hdr sep row
	hdr="| target | kernel | arch | CPUs | boot s |" sep="|---|---|---|---|---|"
	for col in $COLS; do hdr="$hdr ${col%%:*} |" sep="$sep---|"; done
	echo "$hdr"
	echo "$sep"
	for k in "${SEL[@]}"; do
		row="| $k | $(info "$k" uname | awk '{print $2}') | $(info "$k" uname | awk '{print $3}') | $(info "$k" cpus) | $(info "$k" boot_s) |"
		grep -q '^PASS boot$' "$TMP/$k.results" || row="| $k | did not boot: $(grep '^FAIL boot:' "$TMP/$k.results" | head -1 | cut -c12- | cut -c1-120 | tr '|' '/') | | | |"
		for col in $COLS; do row="$row $(cell "$k" "${col#*:}") |"; done
		echo "$row"
	done
	# What was skipped, and what failed, with the reasons.
	for k in "${SEL[@]}"; do
		grep -E '^(SKIP|FAIL) ' "$TMP/$k.results" | sed "s/^\(SKIP\|FAIL\) /- $k, \L\1\E: /"
	done | sed '1i\\' | cut -c1-400
}

# --- main
apt_setup
T0=$(now_ms)
# boot_counted K: boot K in a subshell (a boot that is run again leaves no
# counts behind), its counts, wall time and KEEP into $TMP/K.counts.
boot_counted() {
	( boot "$1"; echo "$npass $nfail $nskip ${WALL[$1]:-?} $KEEP" >"$TMP/$1.counts" )
}

for k in "${SEL[@]}"; do
	# A guest that hangs is booted once more: the hang, with what the
	# guest's watchdog or the NMI said, stays in this log as a note; a
	# second hang fails.
	boot_counted "$k"
	if [ -e "$TMP/$k.hung" ]; then
		note "$k: the guest hung (above: $(cat "$TMP/$k.hung")); its files are in $TMP/$k.hung.d; booting it again, once"
		mv "$TMP/$k" "$TMP/$k.hung.d"
		mv "$TMP/$k.hung" "$TMP/$k.hung.d/why"
		KEEP=1
		boot_counted "$k"
		[ -e "$TMP/$k.hung" ] && note "$k: the guest hung again: that fails"
	fi
	read -r npass nfail nskip w keep <"$TMP/$k.counts"
	WALL[$k]=$w
	[ "$keep" = 1 ] && KEEP=1
done
T1=$(now_ms)
echo
table | tee "$TMP/table.md"
TOTAL_S=$(((T1 - T0 + 500) / 1000))
echo
echo "boot-test: ${#SEL[@]} kernels in $TOTAL_S s ($(for k in "${SEL[@]}"; do printf '%s %ss, ' "$k" "${WALL[$k]:-?}"; done | sed 's/, $//'))"

if [ "$WRITE" = 1 ]; then
	# This run's rows and notes, and the README's for the kernels not
	# booted now, in the order of KERNELS.
	readme_block >"$TMP/old.md"
	{
		echo "$MARK_BEGIN"
		echo
		echo "Written $(date -u +%Y-%m-%d) by \`make boot-test\` ($(qemu-system-aarch64 --version 2>/dev/null | head -1 | sed 's/ (.*//'), TCG). boot s: the whole boot with its tests and the transfer of the files."
		if [ ${#SEL[@]} = "$(echo "$KERNELS" | grep -c .)" ]; then
			echo "The last run of all $(echo "$KERNELS" | grep -c .) kernels took $TOTAL_S s, downloads and builds included."
		else
			grep '^The last run of all' "$TMP/old.md"
		fi
		echo
		sed -n 1,2p "$TMP/table.md"
		for k in $(echo "$KERNELS" | awk 'NF {print $1}'); do
			if [[ " ${SEL[*]} " == *" $k "* ]]; then
				awk -F' *\\| *' -v k="$k" '$2 == k' "$TMP/table.md"
			else
				awk -F' *\\| *' -v k="$k" '$2 == k' "$TMP/old.md"
			fi
		done
		echo
		for k in $(echo "$KERNELS" | awk 'NF {print $1}'); do
			if [[ " ${SEL[*]} " == *" $k "* ]]; then
				grep "^- $k, " "$TMP/table.md"
			else
				grep "^- $k, " "$TMP/old.md"
			fi
		done
		echo
		echo "$MARK_END"
	} >"$TMP/block.md"
	if grep -qxF "$MARK_BEGIN" "$README" && grep -qxF "$MARK_END" "$README"; then
		awk -v b="$MARK_BEGIN" -v e="$MARK_END" -v f="$TMP/block.md" '
		$0 == b { while ((getline l < f) > 0) print l; skip = 1; next }
		$0 == e { skip = 0; next }
		!skip' "$README" >"$TMP/README.new" && cat "$TMP/README.new" >"$README"
		echo "boot-test: README.md's tested-on table rewritten (the rows of ${SEL[*]})"
	else
		echo "boot-test: README.md has no tested-on markers; the table is in $TMP/block.md"
		KEEP=1
	fi
elif grep -qxF "$MARK_BEGIN" "$README"; then
	# The README's row of each kernel run here says what this run found.
	for k in "${SEL[@]}"; do
		want=$(readme_block | awk -F' *\\| *' -v k="$k" '$2 == k { for (i = 7; i < NF; i++) printf "%s ", $i; print "" }')
		got=$(awk -F' *\\| *' -v k="$k" '$2 == k { for (i = 7; i < NF; i++) printf "%s ", $i; print "" }' "$TMP/table.md")
		if [ -z "$want" ]; then
			note "$k: not in README's tested-on table"
		elif [ "$want" = "$got" ]; then
			pass "readme_row $k"
		else
			fail "readme_row $k" "README's tested-on table says '$want', this run '$got' (make boot-test rewrites it)"
		fi
	done
fi
echo "$npass passed, $nfail failed, $nskip skipped"
[ "$nfail" = 0 ]
