# algos/: libkcoll (algos/libkcoll.a, algos/libkcoll.so) and the MPI test
# programs of the correctness suite (ASan). The benchmark driver is bench/.

KCOLL_SRCS := $(wildcard algos/*.c)
KCOLL_OBJS := $(patsubst %.c,$(BUILD)/kcoll/%.o,$(KCOLL_SRCS))
KCOLL_ASAN_OBJS := $(patsubst %.c,$(BUILD)/kcoll-asan/%.o,$(KCOLL_SRCS))
KCOLL_MODEL_ASAN_OBJS := $(patsubst %.c,$(BUILD)/asan/%.o,$(KCOLL_MODEL_SRCS) $(GEN_SRCS))

.PHONY: lib
lib: algos/libkcoll.a algos/libkcoll.so

# libkcoll.so exports only kcoll.h's KCOLL_API functions: everything else,
# the model and params code included, is hidden. Static users (libkcoll.a,
# the benchmark, the tests) still link every symbol. The objects depend on
# this file so a change of flags here rebuilds them.
$(KCOLL_OBJS) $(KCOLL_MODEL_OBJS): CFLAGS += -fvisibility=hidden
$(KCOLL_OBJS) $(KCOLL_MODEL_OBJS): algos/module.mk

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

# MPI test programs of the correctness suite, with ASan + UBSan.
$(BUILD)/tests/algos_check: tests/algos_check.c $(KCOLL_ASAN_OBJS) $(KCOLL_MODEL_ASAN_OBJS) | $(STAMP)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -Itests $(MPI_CFLAGS) $(CFLAGS) $(SANFLAGS) -o $@ $^ $(MPI_LIBS) -lm

$(BUILD)/tests/algos_cma_check: tests/algos_cma_check.c $(BUILD)/kcoll-asan/algos/cma.o tests/check.h | $(STAMP)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -Itests $(MPI_CFLAGS) $(CFLAGS) $(SANFLAGS) -o $@ $< $(BUILD)/kcoll-asan/algos/cma.o

TEST_EXTRA_BINS += $(BUILD)/tests/algos_check $(BUILD)/tests/algos_cma_check
