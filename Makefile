# kcal — build, test, report. `make help` lists the targets.
#
# Layout (README "Layout"): every common/*.c, model/*.c, fit/*.c, probe/*.c,
# reports/*.c and bench/bench_cmd.c is part of the `kcal` binary (kcal.c holds
# main); algos/ builds libkcoll (algos/module.mk), bench/ the MPI benchmark
# program `kcal bench` launches (bench/module.mk). Tests are tests/test_*.c (one binary
# each, built with AddressSanitizer + UBSan) and tests/*.sh (run with $KCAL
# pointing at the sanitized kcal). Dependencies are installed first, by
# scripts/install-deps, so a fresh machine needs only `make run` / `make test`.

SHELL   := /bin/bash
BUILD   ?= build
CC      ?= cc
STAMP   := $(BUILD)/.deps-installed

# Recursive (=) so pkg-config runs after install-deps has made it available.
PKG_CFLAGS = $(shell pkg-config --cflags gsl hwloc)
PKG_LIBS   = $(shell pkg-config --libs gsl hwloc) -lm
MPI_CFLAGS = $(shell pkg-config --cflags ompi-c)
MPI_LIBS   = $(shell pkg-config --libs ompi-c)

WARN      := -Wall -Wextra -Werror
CPPFLAGS  += -D_GNU_SOURCE -Icommon -Imodel -Ifit -Iprobe -Ialgos -Ibench -Ireports -Itune -I$(BUILD)/gen
CFLAGS    ?= -O2 -g
CFLAGS    += -std=gnu11 $(WARN)
SANFLAGS  := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined

KCAL_SRCS := $(wildcard common/*.c model/*.c fit/*.c probe/*.c reports/*.c tune/*.c) bench/bench_cmd.c bench/bench_run.c interpose/run_cmd.c
GEN_SRCS  := $(BUILD)/gen/embedded_params.c
PARAMS_FILES := $(wildcard data/knl.params data/broadwell.params data/power8.params)

KCAL_OBJS      := $(patsubst %.c,$(BUILD)/obj/%.o,$(KCAL_SRCS) $(GEN_SRCS))
KCAL_ASAN_OBJS := $(patsubst %.c,$(BUILD)/asan/%.o,$(KCAL_SRCS) $(GEN_SRCS))
# libkcoll carries only what choosing an algorithm needs (no GSL, no CLI).
KCOLL_MODEL_SRCS := model/params.c model/model.c model/table.c common/sizes.c common/err.c common/grow.c
KCOLL_MODEL_OBJS := $(patsubst %.c,$(BUILD)/pic/%.o,$(KCOLL_MODEL_SRCS) $(GEN_SRCS))

TEST_C_SRCS := $(wildcard tests/test_*.c)
TEST_BINS   := $(patsubst tests/%.c,$(BUILD)/tests/%,$(TEST_C_SRCS))
TEST_SH     := $(sort $(wildcard tests/*.sh))

# Extra test programs and scripts from modules (algos/module.mk adds its own).
TEST_EXTRA_BINS :=
ALL_TARGETS := kcal

.PHONY: all deps run test report bench clean help print-ldflags
all: $(STAMP) kcal lib

help:
	@echo "make            build kcal, algos/libkcoll.{a,so}, build/libkcoll_pmpi.so and the MPI programs (installs deps first)"
	@echo "make run        the main job: ./kcal predict --coll scatter --p 64 on the embedded default"
	@echo "make test       build with ASan+UBSan and run every test (tests/)"
	@echo "make report     measure, predict and compare: reports/out/report.md (QUICK=1, OVERSUB=P, PARAMS=file)"
	@echo "make fuzz       libFuzzer targets of tests/fuzz/, FUZZ_S seconds each (default 60; FUZZ_TARGETS=...)"
	@echo "make fuzz-smoke every fuzz target for 10 s (what CI runs after make test)"
	@echo "make bench      scripts/bench-*: performance benchmarks (not tests)"
	@echo "make deps       install the Debian packages kcal needs (scripts/install-deps)"
	@echo "make install    install kcal, libkcoll, the interposer, kcoll.h, kcoll.pc (PREFIX=/usr/local, DESTDIR)"
	@echo "make uninstall  remove what make install installed (same PREFIX, DESTDIR)"
	@echo "make print-ldflags  what a static link against libkcoll.a needs"
	@echo "make clean      remove build/, kcal, algos/libkcoll.*, reports/out/"

deps $(STAMP): scripts/install-deps
	@scripts/install-deps
	@mkdir -p $(BUILD) && touch $(STAMP)

run: all
	./kcal predict --coll scatter --p 64

# Embedded defaults: data/*.params compiled in, so kcal works from any directory.
$(BUILD)/gen/embedded_params.c: scripts/embed-params $(PARAMS_FILES)
	@mkdir -p $(@D)
	scripts/embed-params $(PARAMS_FILES) > $@.tmp && mv $@.tmp $@

$(BUILD)/obj/%.o: %.c | $(STAMP)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(PKG_CFLAGS) $(CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/asan/%.o: %.c | $(STAMP)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(PKG_CFLAGS) $(CFLAGS) $(SANFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/pic/%.o: %.c | $(STAMP)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(PKG_CFLAGS) $(CFLAGS) -fPIC -MMD -MP -c $< -o $@

kcal: $(BUILD)/obj/kcal.o $(KCAL_OBJS)
	$(CC) $(CFLAGS) -o $@ $^ $(PKG_LIBS)

$(BUILD)/asan/kcal: $(BUILD)/asan/kcal.o $(KCAL_ASAN_OBJS)
	$(CC) $(CFLAGS) $(SANFLAGS) -o $@ $^ $(PKG_LIBS)

$(BUILD)/tests/%: tests/%.c $(KCAL_ASAN_OBJS) tests/check.h | $(STAMP)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -Itests $(PKG_CFLAGS) $(CFLAGS) $(SANFLAGS) -o $@ $< $(KCAL_ASAN_OBJS) $(PKG_LIBS)

-include algos/module.mk
-include bench/module.mk
-include reports/module.mk
-include probe/module.mk
-include tests/fuzz/module.mk
-include interpose/module.mk
-include install.mk

test: $(STAMP) kcal lib $(BUILD)/asan/kcal $(TEST_BINS) $(TEST_EXTRA_BINS)
	@KCAL=$(CURDIR)/$(BUILD)/asan/kcal KCAL_RELEASE=$(CURDIR)/kcal BUILD=$(CURDIR)/$(BUILD) \
	  scripts/run-tests $(TEST_BINS) $(TEST_SH)

bench: all
	@for b in scripts/bench-*; do echo "== $$b"; $$b || exit 1; done

clean:
	rm -rf $(BUILD) kcal algos/libkcoll.a algos/libkcoll.so reports/out

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
