# tc: a live timechart for Linux. One C file; see README.md.
#
#   make                 ./tc (gcc by default; make CC=clang works too)
#   make static          ./tc-static, static with musl-gcc, stripped (at most 164 KiB)
#   make install         $(DESTDIR)$(PREFIX)/bin/$(NAME) and its man page: PREFIX=/usr/local, NAME=tc
#   make tc.1            the man page, from tc --help
#   make docs            tc.1 and README's command list, from tc --help
#   make test            unit tests (plain and ASan+UBSan), replay and kernel tests
#   make sim SEEDS=N     the ground-truth check of tc's model over N seeds (default 2000)
#   make fuzz            AFL++ on --summary, --script and the view (FUZZ_SECONDS each, default 1200)
#   make cross           tc and the unit tests for six other targets, run under qemu-user
#   make boot-test       tc on Debian's own kernels of other targets, booted under qemu-system
#   make fuzz-build      only build ./tc-fuzz (afl-clang-fast, ASan+UBSan)
#   make clean
#
# Flags: the project's own are TC_OPT (optimisation) and TC_WARN (language,
# warnings); CPPFLAGS, CFLAGS, LDFLAGS and LDLIBS from the environment or
# the command line come after them, so they add to them or override them
# (make CFLAGS=-O0, make CPPFLAGS=-DTC_MAX_TASKS=4096). CI adds
# warnings-as-errors with EXTRA_CFLAGS=-Werror. CROSS_COMPILE=PREFIX- builds
# with $(CROSS_COMPILE)gcc (make CROSS_COMPILE=aarch64-linux-gnu-).

CROSS_COMPILE ?=
ifeq ($(origin CC),default)
CC = $(CROSS_COMPILE)gcc
endif
MUSL_CC ?= musl-gcc
STRIP ?= $(CROSS_COMPILE)strip
INSTALL ?= install

TC_OPT = -O2 -g
TC_WARN = -std=gnu11 -Wall -Wextra
CPPFLAGS ?=
CFLAGS ?=
LDFLAGS ?=
LDLIBS ?=
EXTRA_CFLAGS ?=
TC_CFLAGS = $(TC_OPT) $(TC_WARN) $(CPPFLAGS) $(CFLAGS) $(EXTRA_CFLAGS)
# tc itself is linked static where the C library can (-static-pie: no
# dynamic loader, and the address space still randomized): on an AMD EPYC
# VM every start took 0.9 ms less (25 page faults fewer), 5% of a replay of
# make bench's tc file. Where it cannot (no libc.a: Fedora without
# glibc-static), tc is linked as usual. TC_LINK= links it as usual.
TC_LINK ?= $(shell t=$$(mktemp) && printf 'int main(void) { return 0; }\n' | \
	     $(CC) -x c -static-pie -o "$$t" - >/dev/null 2>&1 && echo -static-pie; rm -f "$$t")
# -O1 (after TC_CFLAGS' -O2): the sanitizer builds compile in 20 s of CPU
# where -O2 took 37 s, and run the tests' files as fast
SANFLAGS = -O1 -fsanitize=address,undefined -fno-sanitize-recover=all \
	   -fno-omit-frame-pointer

# The static build: small code (-Oz: 1.7 KiB less than -Os, and a
# replay's CPU time 4% more), unused functions and data dropped by the
# linker, no unwind tables (C, no exceptions), no build id, and no
# page of padding between the code and the read-only data (-z
# noseparate-code; a static binary maps its few pages anyway) nor
# before the relocation-read-only part (-z norelro: a static non-PIE
# binary has no dynamic relocations for it to protect), nor up to a page
# boundary before the data (-z common-page-size=16: the data's first page
# then also holds the code's last bytes, as the loader maps it anyway);
# code not position-independent (-fno-pie: 2.7 KiB less; -static links a
# non-PIE executable, which the default PIE code only made bigger); a
# switch as compares, not a table of addresses (-fno-jump-tables: 288
# bytes less, a replay 1.3% more instructions and no slower).
TC_SMALL = -Oz -fno-pie -fno-jump-tables -ffunction-sections -fdata-sections -fno-asynchronous-unwind-tables \
	   -fno-unwind-tables -Wl,--gc-sections -Wl,--build-id=none \
	   -Wl,-z,noseparate-code -Wl,-z,norelro -Wl,-z,common-page-size=16
STATIC_MAX = 167936
# and, for musl-gcc (gcc), functions called once stay functions: 400 bytes
# less than inlined into their caller.
MUSL_SMALL = -fno-inline-functions-called-once

# musl's include directory has no Linux UAPI headers (linux/perf_event.h):
# give musl-gcc the system's linux/, asm/ and asm-generic/ and nothing else,
# so no glibc header leaks into the static build.
MULTIARCH := $(shell $(CC) -print-multiarch 2>/dev/null)
KASM := $(firstword $(wildcard /usr/include/$(MULTIARCH)/asm /usr/include/asm))
MUSL_INC = .musl-include

# make test compares tc-static with tc where musl-gcc is installed.
TEST_STATIC := $(if $(shell command -v $(MUSL_CC) 2>/dev/null),tc-static)

# test/unit.c is written together with tc.c; build it when it exists.
UNIT := $(if $(wildcard test/unit.c),test/unit)

# make install
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man/man1
DESTDIR ?=
NAME ?= tc
BIN ?= tc

# make cross: targets (GNU triplets), the compiler for one ($* is the
# triplet; clang needs only the target's libc and binutils, and unlike the
# gcc-TRIPLET packages it can be installed next to gcc-multilib; a gcc cross
# compiler: make cross CROSS_CC='$*-gcc'), and qemu-user's name for each.
CROSS_TARGETS ?= aarch64-linux-gnu arm-linux-gnueabihf riscv64-linux-gnu \
		 mips-linux-gnu s390x-linux-gnu i686-linux-gnu
CROSS_CC ?= clang --target=$*
CROSS_STRIP ?= $*-strip
CROSS_BINS = $(foreach t,$(CROSS_TARGETS),cross/$(t)/tc cross/$(t)/unit)

.PHONY: all static static-check test sim clean bench tc32 fuzz fuzz-build fuzz-summary fuzz-script fuzz-view \
	install uninstall cross docs boot-test

all: tc

tc: tc.c
	$(CC) $(TC_CFLAGS) $(TC_LINK) $(LDFLAGS) -o $@ tc.c $(LDLIBS)

tc-san: tc.c
	$(CC) $(TC_CFLAGS) $(SANFLAGS) $(LDFLAGS) -o $@ tc.c $(LDLIBS)

# 32-bit build (gcc-multilib): tc must stay 32-bit clean
tc32: tc.c
	$(CC) -m32 $(TC_CFLAGS) $(LDFLAGS) -o $@ tc.c $(LDLIBS)

# make static says how the size stands against the 164 KiB goal;
# make static-check fails when it is over (CI runs it).
static: tc-static
	@size=$$(stat -c %s tc-static); \
	if [ $$size -le $(STATIC_MAX) ]; then \
		echo "tc-static: $$size bytes ($$(($(STATIC_MAX) - size)) under $(STATIC_MAX))"; \
	else \
		echo "tc-static: $$size bytes, $$((size - $(STATIC_MAX))) over the goal of $(STATIC_MAX)"; \
	fi

static-check: tc-static
	@size=$$(stat -c %s tc-static); \
	[ $$size -le $(STATIC_MAX) ] || { echo "tc-static: $$size bytes, over $(STATIC_MAX)" >&2; exit 1; }

tc-static: tc.c
	rm -rf $(MUSL_INC) && mkdir -p $(MUSL_INC)
	ln -s /usr/include/linux $(MUSL_INC)/linux
	ln -s /usr/include/asm-generic $(MUSL_INC)/asm-generic
	ln -s $(KASM) $(MUSL_INC)/asm
	$(MUSL_CC) -static $(TC_WARN) $(TC_SMALL) $(MUSL_SMALL) -isystem $(MUSL_INC) $(CPPFLAGS) $(CFLAGS) \
		$(EXTRA_CFLAGS) $(LDFLAGS) -o $@ tc.c $(LDLIBS)
	$(STRIP) -R .comment $@

install: $(BIN) tc.1
	$(INSTALL) -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)
	$(INSTALL) -m 0755 $(BIN) $(DESTDIR)$(BINDIR)/$(NAME)
	$(INSTALL) -m 0644 tc.1 $(DESTDIR)$(MANDIR)/$(NAME).1

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/$(NAME) $(DESTDIR)$(MANDIR)/$(NAME).1

# The man page, from tc --help (tc's option and key tables); committed, and
# the test man_page fails when it is not what tc --help makes of it now.
tc.1: tc test/mkman.awk
	./tc --help | awk -v VERSION="$$(./tc --version | cut -d' ' -f2)" -f test/mkman.awk > $@

# make docs: tc.1 and README's command list (between its <!-- tc --help -->
# markers) from tc --help again, after an option changes (test readme_help).
docs: tc.1
	./tc --help | sed '/^keys in the view:$$/,$$d' > .help.tmp
	awk 'FNR == NR { h = h $$0 "\n"; next } /^<!-- tc --help -->$$/ { print; print "```"; printf "%s", h; skip = 1; next } \
	     /^<!-- end of tc --help -->$$/ { print "```"; skip = 0 } !skip' .help.tmp README.md > .readme.tmp
	mv .readme.tmp README.md
	rm -f .help.tmp

# (The test binaries without -g: debug information was a quarter of their
# compile time, and make test builds them every time.)
test/unit: test/unit.c tc.c
	$(CC) $(TC_CFLAGS) -g0 -DTC_TEST $(LDFLAGS) -o $@ test/unit.c $(LDLIBS)

test/unit-san: test/unit.c tc.c
	$(CC) $(TC_CFLAGS) $(SANFLAGS) -DTC_TEST $(LDFLAGS) -o $@ test/unit.c $(LDLIBS)

test/pingpong: test/pingpong.c test/xfer.h
	$(CC) $(TC_CFLAGS) $(LDFLAGS) -o $@ test/pingpong.c

test/schedtruth: test/schedtruth.c test/xfer.h
	$(CC) $(TC_CFLAGS) $(LDFLAGS) -o $@ test/schedtruth.c

# A workload that gives itself a hostile name (escape sequences), for the view tests.
test/evilname: test/evilname.c
	$(CC) $(TC_CFLAGS) $(LDFLAGS) -o $@ test/evilname.c

# A workload with a known set of I/O calls, for the -I tests (t_io.sh).
# Static, so that no dynamic loader reads before main; a dynamic build if
# there is no static libc (t_io.sh then says so and skips the exact counts).
test/iorw: test/iorw.c
	$(CC) $(TC_CFLAGS) $(LDFLAGS) -static -o $@ test/iorw.c || \
		$(CC) $(TC_CFLAGS) $(LDFLAGS) -o $@ test/iorw.c

# A CPU hog that ends by itself (the flight tests, make bench's real-time hogs).
test/spin: test/spin.c
	$(CC) $(TC_CFLAGS) $(LDFLAGS) -o $@ test/spin.c

test/forks: test/forks.c
	$(CC) $(TC_CFLAGS) $(LDFLAGS) -o $@ test/forks.c

# Interrupts on purpose (loopback UDP, O_DIRECT writes, sleeps), for the -Q tests (t_irq.sh).
test/irqload: test/irqload.c
	$(CC) $(TC_CFLAGS) $(LDFLAGS) -o $@ test/irqload.c

# ringfloor: the kernel's cost of writing tc's samples into rings, with a
# reader that only frees them (make bench's floor for the slowdowns)
test/ringfloor: test/ringfloor.c
	$(CC) $(TC_CFLAGS) $(LDFLAGS) -o $@ test/ringfloor.c

# readfloor: each line of a file touched once, read() or mapped (make bench's
# floor for the reader, beside cat)
test/readfloor: test/readfloor.c
	$(CC) $(TC_CFLAGS) $(LDFLAGS) -o $@ test/readfloor.c

# A wakeup chain of four tasks over pipes, for the waker chain test (t_answers.sh).
test/chain: test/chain.c test/xfer.h
	$(CC) $(TC_CFLAGS) $(LDFLAGS) -o $@ test/chain.c

# Synthetic perf.data files for the replay tests.
test/mkdata: test/mkdata.c test/perfdata.h
	$(CC) $(TC_CFLAGS) $(LDFLAGS) -o $@ test/mkdata.c

# The scheduler simulator with ground truth (issue 21): make sim runs its
# truth check over SEEDS seeds and every damage kind; make test a few
# hundred (t_truth.sh).
SEEDS ?= 2000
test/sim: test/sim.c test/perfdata.h
	$(CC) $(TC_CFLAGS) $(LDFLAGS) -o $@ test/sim.c

sim: tc test/sim
	test/sim run --tc ./tc --seeds $(SEEDS)

# make bench's clock: a command's wall time from its fork, CPU and peak RSS.
test/runtime: test/runtime.c
	$(CC) $(TC_CFLAGS) $(LDFLAGS) -o $@ test/runtime.c

# Zoom to exact in the replay view: timed (make bench), and read from a
# checkpoint against read from the start (make test).
test/zoombench: test/zoombench.c tc.c
	$(CC) $(TC_CFLAGS) -g0 -DTC_TEST $(LDFLAGS) -o $@ test/zoombench.c $(LDLIBS)

# A rate-limited terminal (a serial line) for t_serial.sh.
test/slowpty: test/slowpty.c
	$(CC) $(TC_CFLAGS) $(LDFLAGS) -o $@ test/slowpty.c -lutil

# tc with a small task table, for the eviction test (-O1: 2.7 s to build,
# 5.7 at -O2 with -g).
tc-small: tc.c
	$(CC) $(TC_CFLAGS) -O1 -g0 -DTC_MAX_TASKS=64 $(LDFLAGS) -o $@ tc.c $(LDLIBS)

# make test builds what the tests run one job per CPU, -j or not, then
# runs them (test/run.sh runs them in parallel too, see there).
# (the longest builds first, make starts them in this order: unit-san
# 12 s, tc-san 8.3, unit 6.5, tc 5.7)
TEST_BINS = $(UNIT:=-san) tc-san $(UNIT) tc tc-small $(TEST_STATIC) test/zoombench test/sim test/mkdata test/pingpong \
	    test/evilname test/iorw test/slowpty test/chain test/spin test/irqload test/schedtruth
NPROC := $(shell nproc 2>/dev/null || echo 1)

test:
	@$(MAKE) --no-print-directory $(if $(filter -j%,$(MAKEFLAGS)),,-j$(NPROC)) $(TEST_BINS)
	bash test/run.sh

# Cross builds: static, so that qemu-user runs them without a sysroot.
# tc is built as tc-static is (stripped: cross/TARGET/tc-stripped is the
# size that counts), the unit tests at -O2.
cross/%/tc: tc.c
	@mkdir -p $(@D)
	$(CROSS_CC) -static $(TC_WARN) $(TC_SMALL) $(CPPFLAGS) $(CFLAGS) $(EXTRA_CFLAGS) \
		$(LDFLAGS) -o $@ tc.c $(LDLIBS)
	$(CROSS_STRIP) -R .comment -o $@-stripped $@

cross/%/unit: test/unit.c tc.c
	@mkdir -p $(@D)
	$(CROSS_CC) -static -O2 $(TC_WARN) $(CPPFLAGS) $(CFLAGS) $(EXTRA_CFLAGS) -DTC_TEST \
		$(LDFLAGS) -o $@ test/unit.c $(LDLIBS)

cross: tc test/mkdata $(CROSS_BINS)
	bash test/cross.sh $(CROSS_TARGETS)

# The workloads of the boot test (test/boot.sh), static for the target:
# pingpong (known switches), spin (a run with no switch, for a flight
# trigger) and iorw (known I/O calls, for -I).
cross/%/pingpong: test/pingpong.c test/xfer.h
	@mkdir -p $(@D)
	$(CROSS_CC) -static -O2 $(TC_WARN) $(EXTRA_CFLAGS) -o $@ test/pingpong.c

cross/%/spin: test/spin.c
	@mkdir -p $(@D)
	$(CROSS_CC) -static -O2 $(TC_WARN) $(EXTRA_CFLAGS) -o $@ test/spin.c

cross/%/iorw: test/iorw.c
	@mkdir -p $(@D)
	$(CROSS_CC) -static -O2 $(TC_WARN) $(EXTRA_CFLAGS) -o $@ test/iorw.c

# make boot-test: boot Debian's kernels of other targets (and older ones)
# under qemu-system and run tc there (test/boot.sh; BOOT_KERNELS picks
# some, `bash test/boot.sh --list` lists them; BOOT_ARGS=--write-readme
# rewrites their rows of the table). Downloads are cached in
# TC_BOOT_CACHE (/var/cache/tc-boot). With every kernel, the README's
# "Tested on" table is rewritten from the results.
BOOT_KERNELS ?=
BOOT_ARGS ?=
boot-test: tc
	bash test/boot.sh $(if $(BOOT_KERNELS),$(BOOT_KERNELS) $(BOOT_ARGS),--all --write-readme)

bench: tc test/pingpong test/runtime test/zoombench test/irqload test/spin test/ringfloor test/readfloor test/forks test/sim
	bash test/bench_read.sh
	bash test/bench_record.sh
	bash test/bench_irq.sh
	bash test/bench_load.sh
	bash test/bench.sh
	bash test/bench_view.sh

# Fuzzing what users run: tc-fuzz is tc built with AFL++ instrumentation,
# ASan, UBSan and -DTC_FUZZ (which adds the headless view, TC_FUZZ_VIEW).
# afl-fuzz feeds it mutated recordings from test/fuzz-seeds; one target
# after the other, FUZZ_SECONDS each (default 1200), one core, no terminal:
#   fuzz-summary   tc --replay FILE --summary
#   fuzz-script    tc --replay FILE --script
#   fuzz-view      the view drawn headless at 40x120, one frame per key of
#                  FUZZ_KEYS: zoom, pan, cursor, rows, waker, search, mouse
# A second run resumes fuzz-out/TARGET (AFL_AUTORESUME); rm -rf fuzz-out to
# start over. Findings: fuzz-out/TARGET/default/crashes and hangs.
AFL_CC ?= afl-clang-fast
FUZZ_KEYS ?= +++LLjjwnHH--lhh0s?x/sw\r+jjkK\033[<0;50;6M\033[B\033[6~pmq
AFL_RUN = mkdir -p fuzz-out && AFL_SKIP_CPUFREQ=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 \
	AFL_NO_UI=1 AFL_AUTORESUME=1 afl-fuzz -i test/fuzz-seeds -V $${FUZZ_SECONDS:-1200}

tc-fuzz: tc.c
	AFL_USE_ASAN=1 AFL_USE_UBSAN=1 $(AFL_CC) -O1 -g -std=gnu11 -DTC_FUZZ \
		-fsanitize=address,undefined -fno-sanitize-recover=all \
		-fno-omit-frame-pointer $(CPPFLAGS) $(LDFLAGS) -o $@ tc.c $(LDLIBS)

fuzz-build: tc-fuzz

fuzz: fuzz-summary fuzz-script fuzz-view

fuzz-summary: tc-fuzz
	$(AFL_RUN) -o fuzz-out/summary -- ./tc-fuzz --replay @@ --summary

fuzz-script: tc-fuzz
	$(AFL_RUN) -o fuzz-out/script -- ./tc-fuzz --replay @@ --script

fuzz-view: tc-fuzz
	export TC_FUZZ_VIEW="$$(printf '40 120 $(FUZZ_KEYS)')"; \
		$(AFL_RUN) -o fuzz-out/view -- ./tc-fuzz --replay @@

clean:
	rm -f tc tc-san tc-small tc-static test/unit test/unit-san test/pingpong test/evilname \
		test/mkdata test/sim test/iorw test/slowpty test/chain test/spin test/forks test/irqload test/ringfloor test/readfloor test/runtime test/zoombench test/schedtruth tc-fuzz tc32
	rm -rf $(MUSL_INC) fuzz-out cross
