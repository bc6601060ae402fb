# tc: a live timechart for Linux. One C file; see README.md.
#
#   make                 ./tc (gcc by default; make CC=clang works too)
#   make static          ./tc-static, static with musl-gcc, stripped
#   make test            unit tests (plain and ASan+UBSan), replay and kernel tests
#   make fuzz            AFL++ on the perf.data reader (FUZZ_SECONDS, default 1800)
#   make fuzz-build      only build ./tc-fuzz (afl-clang-fast, ASan+UBSan)
#   make clean
#
# CI adds warnings-as-errors with EXTRA_CFLAGS=-Werror.

ifeq ($(origin CC),default)
CC = gcc
endif
MUSL_CC ?= musl-gcc
STRIP ?= strip

CFLAGS = -O2 -g -Wall -Wextra -std=gnu11
EXTRA_CFLAGS ?=
LDLIBS ?=
SANFLAGS = -fsanitize=address,undefined -fno-sanitize-recover=all \
	   -fno-omit-frame-pointer

# musl's include directory has no Linux UAPI headers (linux/perf_event.h):
# give musl-gcc the system's linux/, asm/ and asm-generic/ and nothing else,
# so no glibc header leaks into the static build.
MULTIARCH := $(shell $(CC) -print-multiarch 2>/dev/null)
KASM := $(firstword $(wildcard /usr/include/$(MULTIARCH)/asm /usr/include/asm))
MUSL_INC = .musl-include

# test/unit.c is written together with tc.c; build it when it exists.
UNIT := $(if $(wildcard test/unit.c),test/unit test/unit-san)

.PHONY: all static test clean bench tc32 fuzz fuzz-build

all: tc

tc: tc.c
	$(CC) $(CFLAGS) $(EXTRA_CFLAGS) -o $@ tc.c $(LDLIBS)

tc-san: tc.c
	$(CC) $(CFLAGS) $(SANFLAGS) $(EXTRA_CFLAGS) -o $@ tc.c $(LDLIBS)

# 32-bit build (gcc-multilib): tc must stay 32-bit clean
tc32: tc.c
	$(CC) -m32 $(CFLAGS) $(EXTRA_CFLAGS) -o $@ tc.c $(LDLIBS)

static: tc-static
	@echo "tc-static: $$(stat -c %s tc-static) bytes"

tc-static: tc.c
	rm -rf $(MUSL_INC) && mkdir -p $(MUSL_INC)
	ln -s /usr/include/linux $(MUSL_INC)/linux
	ln -s /usr/include/asm-generic $(MUSL_INC)/asm-generic
	ln -s $(KASM) $(MUSL_INC)/asm
	$(MUSL_CC) -static -Os -Wall -Wextra -std=gnu11 $(EXTRA_CFLAGS) \
		-isystem $(MUSL_INC) -o $@ tc.c $(LDLIBS)
	$(STRIP) $@

test/unit: test/unit.c tc.c
	$(CC) $(CFLAGS) $(EXTRA_CFLAGS) -DTC_TEST -o $@ test/unit.c $(LDLIBS)

test/unit-san: test/unit.c tc.c
	$(CC) $(CFLAGS) $(SANFLAGS) $(EXTRA_CFLAGS) -DTC_TEST -o $@ \
		test/unit.c $(LDLIBS)

test/pingpong: test/pingpong.c
	$(CC) $(CFLAGS) $(EXTRA_CFLAGS) -o $@ test/pingpong.c

# A workload that gives itself a hostile name (escape sequences), for the view tests.
test/evilname: test/evilname.c
	$(CC) $(CFLAGS) $(EXTRA_CFLAGS) -o $@ test/evilname.c

# A workload with a known set of I/O calls, for the -I tests (t_io.sh).
# Static, so that no dynamic loader reads before main; a dynamic build if
# there is no static libc (t_io.sh then says so and skips the exact counts).
test/iorw: test/iorw.c
	$(CC) $(CFLAGS) $(EXTRA_CFLAGS) -static -o $@ test/iorw.c || \
		$(CC) $(CFLAGS) $(EXTRA_CFLAGS) -o $@ test/iorw.c

# A wakeup chain of four tasks over pipes, for the waker chain test (t_answers.sh).
test/chain: test/chain.c
	$(CC) $(CFLAGS) $(EXTRA_CFLAGS) -o $@ test/chain.c

# Synthetic perf.data files for the replay tests.
test/mkdata: test/mkdata.c
	$(CC) $(CFLAGS) $(EXTRA_CFLAGS) -o $@ test/mkdata.c

# tc with a small task table, for the eviction test.
tc-small: tc.c
	$(CC) $(CFLAGS) $(EXTRA_CFLAGS) -DTC_MAX_TASKS=64 -o $@ tc.c $(LDLIBS)

test: tc tc-san tc-small test/pingpong test/evilname test/mkdata test/iorw test/chain $(UNIT)
	bash test/run.sh

bench: tc test/pingpong
	bash test/bench_record.sh
	bash test/bench.sh
	bash test/bench_view.sh

# Fuzzing the reader: tc-fuzz is tc built with AFL++ instrumentation, ASan
# and UBSan; afl-fuzz feeds it mutated recordings from test/fuzz-seeds as
# `tc --replay FILE --summary`. One instance (one core), no UI, no terminal.
# A second `make fuzz` resumes fuzz-out/ (AFL_AUTORESUME); rm -rf fuzz-out
# to start over. Findings: fuzz-out/default/crashes and hangs.
AFL_CC ?= afl-clang-fast

tc-fuzz: tc.c
	AFL_USE_ASAN=1 AFL_USE_UBSAN=1 $(AFL_CC) -O1 -g -std=gnu11 \
		-fsanitize=address,undefined -fno-sanitize-recover=all \
		-fno-omit-frame-pointer -o $@ tc.c $(LDLIBS)

fuzz-build: tc-fuzz

fuzz: tc-fuzz
	AFL_SKIP_CPUFREQ=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 \
	AFL_NO_UI=1 AFL_AUTORESUME=1 \
		afl-fuzz -i test/fuzz-seeds -o fuzz-out -V $${FUZZ_SECONDS:-1800} \
		-- ./tc-fuzz --replay @@ --summary

clean:
	rm -f tc tc-san tc-small tc-static test/unit test/unit-san test/pingpong test/evilname \
		test/mkdata test/iorw test/chain tc-fuzz
	rm -rf $(MUSL_INC) fuzz-out
