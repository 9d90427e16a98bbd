# algos/: libkcoll ($(KCOLL_LIB).a and .so: algos/libkcoll.* for Open MPI,
# algos/libkcoll-mpich.* with MPI=mpich, common/mpi_flavor.mk) and the MPI
# test programs of the correctness suite (ASan). The benchmark driver is
# bench/.

KCOLL_SRCS := $(wildcard algos/*.c)
KCOLL_OBJS := $(patsubst %.c,$(MPI_BUILD)/kcoll/%.o,$(KCOLL_SRCS))
KCOLL_ASAN_OBJS := $(patsubst %.c,$(MPI_BUILD)/kcoll-asan/%.o,$(KCOLL_SRCS))
KCOLL_MODEL_ASAN_OBJS := $(patsubst %.c,$(BUILD)/asan/%.o,$(KCOLL_MODEL_SRCS) $(GEN_SRCS))

.PHONY: lib
lib: $(KCOLL_LIB).a $(KCOLL_LIB).so

# libkcoll.so exports only kcoll.h's KCOLL_API functions: everything else,
# the model and params code included, is hidden. Static users (libkcoll.a,
# the benchmark, the tests) still link every symbol. The objects depend on
# this file so a change of flags here rebuilds them.
$(KCOLL_OBJS) $(KCOLL_MODEL_OBJS): CFLAGS += -fvisibility=hidden
$(KCOLL_OBJS) $(KCOLL_MODEL_OBJS): algos/module.mk

$(MPI_BUILD)/kcoll/%.o: %.c | $(STAMP)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(MPI_CFLAGS) $(CFLAGS) -fPIC -MMD -MP -c $< -o $@

# The test builds carry the test hooks (algos/verify.h: KCOLL_TEST_SLOW);
# the library users link never does.
$(MPI_BUILD)/kcoll-asan/%.o: CPPFLAGS += -DKCOLL_TEST_HOOKS
$(MPI_BUILD)/kcoll-asan/%.o: %.c | $(STAMP)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(MPI_CFLAGS) $(CFLAGS) $(SANFLAGS) -MMD -MP -c $< -o $@

$(KCOLL_LIB).a: $(KCOLL_OBJS) $(KCOLL_MODEL_OBJS)
	@rm -f $@.tmp
	ar rcs $@.tmp $^ && mv $@.tmp $@

$(KCOLL_LIB).so: $(KCOLL_OBJS) $(KCOLL_MODEL_OBJS)
	$(CC) $(CFLAGS) -shared -Wl,-soname,$(notdir $@) -o $@ $^ $(MPI_LIBS) -lm

# What a program linking libkcoll.a statically needs besides -lkcoll
# (make MPI=mpich print-ldflags: libkcoll-mpich.a and MPICH).
print-ldflags:
	@echo "-L$(CURDIR)/algos -l:$(notdir $(KCOLL_LIB)).a $(MPI_LIBS) -lm"

# MPI test programs of the correctness suite, with ASan + UBSan; algos_check
# names the MPI library it ran with (common/mpi_flavor.c, which uses no MPI).
# algos_check is three files and a header (tests/algos_check.h says which
# holds what), compiled in the one command that links them.
KCOLL_CHECK_ASAN_OBJS := $(patsubst %,$(BUILD)/asan/common/%.o,mpi_flavor exe)
ALGOS_CHECK_SRCS := $(addprefix tests/algos_check,.c _case.c _modes.c)
$(MPI_BUILD)/tests/algos_check: $(ALGOS_CHECK_SRCS) tests/algos_check.h $(KCOLL_ASAN_OBJS) $(KCOLL_MODEL_ASAN_OBJS) $(KCOLL_CHECK_ASAN_OBJS) | $(STAMP)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(MPI_CFLAGS) $(CFLAGS) $(SANFLAGS) -o $@ $(filter-out %.h,$^) $(MPI_LIBS) -lm

$(MPI_BUILD)/tests/algos_cma_check: tests/algos_cma_check.c $(MPI_BUILD)/kcoll-asan/algos/cma.o tests/check.h | $(STAMP)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(MPI_CFLAGS) $(CFLAGS) $(SANFLAGS) -o $@ $< $(MPI_BUILD)/kcoll-asan/algos/cma.o

# The verified choice's tests (tests/algos_verify.sh) use the test hooks.
$(MPI_BUILD)/tests/verify_check: private CPPFLAGS += -DKCOLL_TEST_HOOKS
$(MPI_BUILD)/tests/verify_check: tests/verify_check.c $(KCOLL_ASAN_OBJS) $(KCOLL_MODEL_ASAN_OBJS) | $(STAMP)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(MPI_CFLAGS) $(CFLAGS) $(SANFLAGS) -o $@ $^ $(MPI_LIBS) -lm

TEST_EXTRA_BINS += $(MPI_BUILD)/tests/algos_check $(MPI_BUILD)/tests/algos_cma_check $(MPI_BUILD)/tests/verify_check
MPI_TEST_PROGS += $(MPI_BUILD)/tests/algos_check $(MPI_BUILD)/tests/verify_check

# The verified choice's pick (algos/verify_pick.c calls no MPI) fed
# made-up spans (tests/algos_verify.sh runs it first).
$(MPI_BUILD)/tests/verify_pick_check: tests/verify_pick_check.c $(MPI_BUILD)/kcoll-asan/algos/verify_pick.o tests/check.h | $(STAMP)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(MPI_CFLAGS) $(CFLAGS) $(SANFLAGS) -o $@ $(filter-out %.h,$^) -lm

TEST_EXTRA_BINS += $(MPI_BUILD)/tests/verify_pick_check
MPI_TEST_PROGS += $(MPI_BUILD)/tests/verify_pick_check

# libkcoll's configuration (config.c needs no MPI): its unit test links it
# alone, instead of kcal's objects.
$(BUILD)/tests/test_kcoll_config: tests/test_kcoll_config.c $(BUILD)/asan/algos/config.o tests/check.h algos/config.def | $(STAMP)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(SANFLAGS) -o $@ $< $(BUILD)/asan/algos/config.o -lpthread

# The reductions' correctness test (tests/algos_reduce.sh).
$(MPI_BUILD)/tests/reduce_check: tests/reduce_check.c $(KCOLL_ASAN_OBJS) $(KCOLL_MODEL_ASAN_OBJS) | $(STAMP)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(MPI_CFLAGS) $(CFLAGS) $(SANFLAGS) -o $@ $^ $(MPI_LIBS) -lm

TEST_EXTRA_BINS += $(MPI_BUILD)/tests/reduce_check
MPI_TEST_PROGS += $(MPI_BUILD)/tests/reduce_check

# The irregular collectives' correctness test (tests/algos_vcoll.sh).
$(MPI_BUILD)/tests/vcoll_check: tests/vcoll_check.c algos/irregular.def $(KCOLL_ASAN_OBJS) $(KCOLL_MODEL_ASAN_OBJS) | $(STAMP)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(MPI_CFLAGS) $(CFLAGS) $(SANFLAGS) -o $@ $(filter-out %.def,$^) $(MPI_LIBS) -lm

TEST_EXTRA_BINS += $(MPI_BUILD)/tests/vcoll_check
MPI_TEST_PROGS += $(MPI_BUILD)/tests/vcoll_check

# The root's help policy (algos/vhelp.c) fed made-up times: no MPI run
# (tests/algos_vcoll.sh runs it first).
$(MPI_BUILD)/tests/vhelp_check: tests/vhelp_check.c $(KCOLL_ASAN_OBJS) $(KCOLL_MODEL_ASAN_OBJS) | $(STAMP)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(MPI_CFLAGS) $(CFLAGS) $(SANFLAGS) -o $@ $^ $(MPI_LIBS) -lm

TEST_EXTRA_BINS += $(MPI_BUILD)/tests/vhelp_check
MPI_TEST_PROGS += $(MPI_BUILD)/tests/vhelp_check
