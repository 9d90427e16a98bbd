# kcal — build, test, report. `make help` lists the targets.
#
# Layout (docs/layout.md): cmd/ holds the `kcal` commands (cmd/kcal.c
# holds main), and with every common/*.c, model/*.c, fit/*.c, probe/*.c,
# reports/*.c, tune/*.c and the benchmark driver's bench/perf_classes.c,
# bench/capacity.c and bench/reduce_names.c make up the `kcal` binary; algos/ builds libkcoll (algos/module.mk), bench/ the MPI benchmark
# program `kcal bench` launches (bench/module.mk). Tests are tests/test_*.c (one binary
# each, built with AddressSanitizer + UBSan) and tests/*.sh (run with $KCAL
# pointing at the sanitized kcal). Dependencies are installed first, by
# scripts/install-deps, so a fresh machine needs only `make run` / `make test`.

SHELL   := /bin/bash
BUILD   ?= build
CC      ?= cc

# MPI=openmpi (default) or MPI=mpich: MPI_CFLAGS, MPI_LIBS, MPI_BUILD (where
# the MPI programs go) and KCOLL_LIB (libkcoll's name) of that library.
include common/mpi_flavor.mk
STAMP   := $(MPI_BUILD)/.deps-installed

# Recursive (=) so pkg-config runs after install-deps has made it available.
PKG_CFLAGS = $(shell pkg-config --cflags gsl hwloc)
PKG_LIBS   = $(shell pkg-config --libs gsl hwloc) -lm

WARN      := -Wall -Wextra -Werror
# One include root: every include names its folder ("model/params.h"), so
# the layering shows in each file (common/ includes only common/).
CPPFLAGS  += -D_GNU_SOURCE -I. -I$(BUILD)/gen
CFLAGS    ?= -O2 -g
CFLAGS    += -std=gnu11 $(WARN)
SANFLAGS  := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined

# kcal's objects without main (cmd/kcal.c): the fuzz targets link these.
KCAL_SRCS := $(filter-out cmd/kcal.c,$(wildcard cmd/*.c common/*.c model/*.c fit/*.c probe/*.c reports/*.c tune/*.c)) bench/perf_classes.c bench/capacity.c bench/reduce_names.c
GEN_SRCS  := $(BUILD)/gen/embedded_params.c
PARAMS_FILES := $(wildcard data/knl.params data/broadwell.params data/power8.params)

KCAL_OBJS      := $(patsubst %.c,$(BUILD)/obj/%.o,$(KCAL_SRCS) $(GEN_SRCS))
KCAL_ASAN_OBJS := $(patsubst %.c,$(BUILD)/asan/%.o,$(KCAL_SRCS) $(GEN_SRCS))
# libkcoll carries only what choosing an algorithm needs (no GSL, no CLI),
# and the local copy every algorithm makes (common/copy.c).
KCOLL_MODEL_SRCS := model/params.c model/keys.c model/registry.c model/paper.c model/full.c model/derived.c model/reduction.c model/reduce_rate.c model/irregular.c model/working_set.c model/select.c model/table.c common/sizes.c common/err.c common/grow.c common/copy.c common/infile.c
KCOLL_MODEL_OBJS := $(patsubst %.c,$(BUILD)/pic/%.o,$(KCOLL_MODEL_SRCS) $(GEN_SRCS))

TEST_C_SRCS := $(wildcard tests/test_*.c)
TEST_BINS   := $(patsubst tests/%.c,$(BUILD)/tests/%,$(TEST_C_SRCS))
TEST_SH     := $(sort $(wildcard tests/*.sh))

# Extra test programs and scripts from modules (algos/module.mk adds its own).
TEST_EXTRA_BINS :=
# What the MPI test scripts run, built for this run's MPI library (the MPICH
# suite builds it with make MPI=mpich mpi-test-progs): modules add theirs.
MPI_TEST_PROGS := lib
ALL_TARGETS := kcal

.PHONY: all deps run test report bench clean help print-ldflags docs-tables
all: $(STAMP) kcal lib

help:
	@echo "make            build kcal, algos/libkcoll.{a,so}, build/libkcoll_pmpi.so and the MPI programs (installs deps first)"
	@echo "make run        the main job: ./kcal predict --coll scatter --p 64 on the embedded default"
	@echo "make MPI=mpich  the same against MPICH: algos/libkcoll-mpich.{a,so}, build-mpich/ (docs/mpi.md)"
	@echo "make test       build with ASan+UBSan and run every test (tests/); the MPI ones against MPICH too when installed"
	@echo "make test-mpich only the MPI tests against MPICH"
	@echo "make report     measure, predict and compare: reports/out/report.md (QUICK=1, OVERSUB=P, PARAMS=file, MPI=mpich)"
	@echo "make fuzz       libFuzzer targets of tests/fuzz/, FUZZ_S seconds each (default 60; FUZZ_TARGETS=...)"
	@echo "make fuzz-smoke every fuzz target for 10 s (what CI runs after make test)"
	@echo "make bench      scripts/bench-*: performance benchmarks (not tests)"
	@echo "make docs-tables  rewrite the docs' tables that come from model/algorithms.def and model/keys.def"
	@echo "make deps       install the Debian packages kcal needs (scripts/install-deps)"
	@echo "make install    install kcal, libkcoll, the interposer, kcoll.h, kcoll.pc (PREFIX=/usr/local, DESTDIR)"
	@echo "make uninstall  remove what make install installed (same PREFIX, DESTDIR)"
	@echo "make print-ldflags  what a static link against libkcoll.a needs"
	@echo "make clean      remove build/, build-mpich/, kcal, algos/libkcoll*.*, reports/out/"

deps $(STAMP): scripts/install-deps
	@MPI=$(MPI) scripts/install-deps
	@mkdir -p $(@D) && touch $(STAMP)

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

kcal: $(BUILD)/obj/cmd/kcal.o $(KCAL_OBJS)
	$(CC) $(CFLAGS) -o $@ $^ $(PKG_LIBS)

$(BUILD)/asan/kcal: $(BUILD)/asan/cmd/kcal.o $(KCAL_ASAN_OBJS)
	$(CC) $(CFLAGS) $(SANFLAGS) -o $@ $^ $(PKG_LIBS)

$(BUILD)/tests/%: tests/%.c $(KCAL_ASAN_OBJS) tests/check.h | $(STAMP)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(PKG_CFLAGS) $(CFLAGS) $(SANFLAGS) -o $@ $< $(KCAL_ASAN_OBJS) $(PKG_LIBS)

# The fit's tests share their synthetic samples (one header, no object).
$(addprefix $(BUILD)/tests/,test_fit test_fit_full test_fit_handoff): tests/fit_samples.h

# test_model is two files and a header (tests/test_model.h says which holds
# what), compiled in the one command that links them; the second file is
# not named test_*.c, which would make it a test of its own.
TEST_MODEL_SRCS := tests/test_model.c tests/model_shape_select.c
$(BUILD)/tests/test_model: $(TEST_MODEL_SRCS) tests/test_model.h $(KCAL_ASAN_OBJS) tests/check.h | $(STAMP)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(PKG_CFLAGS) $(CFLAGS) $(SANFLAGS) -o $@ $(TEST_MODEL_SRCS) $(KCAL_ASAN_OBJS) $(PKG_LIBS)

-include algos/module.mk
-include bench/module.mk
-include reports/module.mk
-include probe/module.mk
-include tests/fuzz/module.mk
-include interpose/module.mk
-include install.mk

# The MPICH suite (docs/testing.md): these scripts run again against the
# MPICH build, as "x.sh [mpich]". make test builds that build (a make
# MPI=mpich of its own: other flags, other folder) when MPICH is installed;
# without it they skip (exit 77) and say why. make test-mpich (or make
# MPI=mpich test) runs them alone.
MPICH_TESTS := tests/algos_mpi.sh tests/algos_verify.sh tests/algos_reduce.sh tests/algos_vcoll.sh tests/algos_bench.sh tests/bench_vcoll.sh tests/algos_example.sh \
               tests/algos_exports.sh tests/bench_signals.sh tests/probe_quick.sh \
               tests/report_pipeline.sh tests/tune_cli.sh tests/interpose.sh \
               tests/interpose_fortran.sh tests/run_cli.sh tests/probe_network.sh
MPICH_RUNS  := $(addprefix mpich:,$(MPICH_TESTS))
HAVE_MPICH   = $(shell pkg-config --exists mpich && echo yes)
TEST_ENV = KCAL=$(CURDIR)/$(BUILD)/asan/kcal KCAL_RELEASE=$(CURDIR)/kcal BUILD=$(CURDIR)/$(BUILD)

.PHONY: test-mpich mpich-progs mpi-test-progs
mpi-test-progs: $(MPI_TEST_PROGS)

# The model objects both builds share are made here first, so the MPICH
# make never builds them at the same time as this one.
mpich-progs: $(KCOLL_MODEL_OBJS) $(KCOLL_MODEL_ASAN_OBJS) $(KCOLL_CHECK_ASAN_OBJS)
	$(if $(HAVE_MPICH),+@$(MAKE) --no-print-directory MPI=mpich mpi-test-progs,@echo "make: MPICH is not installed (pkg-config mpich): its tests will skip")

ifeq ($(MPI),openmpi)
test: $(STAMP) kcal lib $(BUILD)/asan/kcal $(TEST_BINS) $(TEST_EXTRA_BINS) mpich-progs
	@$(TEST_ENV) scripts/run-tests $(TEST_BINS) $(TEST_SH) $(MPICH_RUNS)

test-mpich: $(STAMP) kcal $(BUILD)/asan/kcal mpich-progs
	@$(TEST_ENV) scripts/run-tests $(MPICH_RUNS)
else
test test-mpich: $(STAMP) kcal $(BUILD)/asan/kcal mpi-test-progs
	@$(TEST_ENV) scripts/run-tests $(MPICH_RUNS)
endif

# The algorithm and key tables of docs/model.md and docs/libkcoll.md, and the
# list tests/test_model.c pins, from the registries (scripts/doc-tables;
# make test's tests/doc_tables.sh fails while they differ).
docs-tables: kcal
	scripts/doc-tables --write ./kcal

# scripts/bench-*.awk are the benchmarks' verdicts and summaries, not benchmarks.
bench: all
	@for b in scripts/bench-*; do case $$b in *.awk) continue;; esac; echo "== $$b"; $$b || exit 1; done

clean:
	rm -rf $(BUILD) $(MPICH_BUILD) kcal algos/libkcoll.a algos/libkcoll.so \
	  algos/libkcoll-mpich.a algos/libkcoll-mpich.so reports/out reports/out-mpich

-include $(shell find $(sort $(BUILD) $(MPI_BUILD)) -name '*.d' 2>/dev/null)
