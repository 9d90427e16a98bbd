# algos/: libkcoll (algos/libkcoll.a, algos/libkcoll.so), the MPI benchmark
# program $(BUILD)/kcal-bench-mpi that `kcal bench` launches, and the MPI test
# programs of the correctness suite (ASan). algos/bench_cmd.c is not here: it
# is the `kcal bench` launcher, compiled into kcal (see KCAL_SRCS).

KCOLL_SRCS := $(filter-out algos/bench_cmd.c algos/bench_mpi.c,$(wildcard algos/*.c))
KCOLL_OBJS := $(patsubst %.c,$(BUILD)/kcoll/%.o,$(KCOLL_SRCS))
KCOLL_ASAN_OBJS := $(patsubst %.c,$(BUILD)/kcoll-asan/%.o,$(KCOLL_SRCS))
KCOLL_MODEL_ASAN_OBJS := $(patsubst %.c,$(BUILD)/asan/%.o,$(KCOLL_MODEL_SRCS) $(GEN_SRCS))
HWLOC_LIBS = $(shell pkg-config --libs hwloc)
KCOLL_BENCH := $(BUILD)/kcal-bench-mpi

.PHONY: lib
lib: algos/libkcoll.a algos/libkcoll.so $(KCOLL_BENCH)

$(BUILD)/kcoll/%.o: %.c | $(STAMP)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(MPI_CFLAGS) $(CFLAGS) -fPIC -MMD -MP -c $< -o $@

$(BUILD)/kcoll-asan/%.o: %.c | $(STAMP)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(MPI_CFLAGS) $(CFLAGS) $(SANFLAGS) -MMD -MP -c $< -o $@

algos/libkcoll.a: $(KCOLL_OBJS) $(KCOLL_MODEL_OBJS)
	@rm -f $@.tmp
	ar rcs $@.tmp $^ && mv $@.tmp $@

algos/libkcoll.so: $(KCOLL_OBJS) $(KCOLL_MODEL_OBJS)
	$(CC) $(CFLAGS) -shared -Wl,-soname,libkcoll.so -o $@ $^ $(MPI_LIBS) -lm

# What a program linking libkcoll.a statically needs besides -lkcoll.
print-ldflags:
	@echo "-L$(CURDIR)/algos -l:libkcoll.a $(MPI_LIBS) -lm"

$(KCOLL_BENCH): $(BUILD)/kcoll/algos/bench_mpi.o algos/libkcoll.a
	$(CC) $(CFLAGS) -o $@ $< algos/libkcoll.a $(MPI_LIBS) $(HWLOC_LIBS) -lm

# MPI test programs of the correctness suite, with ASan + UBSan.
$(BUILD)/tests/algos_check: tests/algos_check.c $(KCOLL_ASAN_OBJS) $(KCOLL_MODEL_ASAN_OBJS) | $(STAMP)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -Itests $(MPI_CFLAGS) $(CFLAGS) $(SANFLAGS) -o $@ $^ $(MPI_LIBS) -lm

$(BUILD)/tests/algos_cma_check: tests/algos_cma_check.c $(BUILD)/kcoll-asan/algos/cma.o tests/check.h | $(STAMP)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -Itests $(MPI_CFLAGS) $(CFLAGS) $(SANFLAGS) -o $@ $< $(BUILD)/kcoll-asan/algos/cma.o

TEST_EXTRA_BINS += $(BUILD)/tests/algos_check $(BUILD)/tests/algos_cma_check
