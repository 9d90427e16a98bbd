# interpose/: libkcoll_pmpi.so, the LD_PRELOAD interposer (docs/interpose.md):
# MPI_Bcast ... MPI_Alltoall, MPI_Reduce, MPI_Allreduce,
# MPI_Reduce_scatter_block, MPI_Scatterv, MPI_Gatherv, MPI_Allgatherv,
# MPI_Alltoallv and their Fortran names, over libkcoll's
# objects linked in (hidden: exports.map exports only the MPI names), so it
# is one file to preload. It lives in $(MPI_BUILD) (build/, or build-mpich/
# with MPI=mpich: common/mpi_flavor.mk), beside the MPI programs kcal
# launches, where `kcal run` finds it (common/mpi_flavor.h). The
# interposer's own test program is built here; tests/interpose*.sh run it.
PMPI_LIB := $(MPI_BUILD)/libkcoll_pmpi.so
INTERPOSE_SRCS := interpose/wrap.c interpose/wrap_reduce.c \
                  interpose/wrap_irregular.c interpose/layout.c \
                  interpose/fortran.c
INTERPOSE_OBJS := $(patsubst %.c,$(MPI_BUILD)/kcoll/%.o,$(INTERPOSE_SRCS))

$(INTERPOSE_OBJS): CFLAGS += -fvisibility=hidden
$(INTERPOSE_OBJS): interpose/module.mk

# -z defs: every symbol resolves in libkcoll's objects or the MPI library.
$(PMPI_LIB): $(INTERPOSE_OBJS) $(KCOLL_OBJS) $(KCOLL_MODEL_OBJS) interpose/exports.map
	$(CC) $(CFLAGS) -shared -Wl,-soname,libkcoll_pmpi.so \
	  -Wl,--version-script=interpose/exports.map -Wl,-z,defs \
	  -o $@ $(filter %.o,$^) $(MPI_LIBS) -lm

lib: $(PMPI_LIB)

# The test program calls MPI_* only (and PMPI_* for its reference results),
# like an application that knows nothing of kcoll: no libkcoll, no ASan (it
# runs with the interposer preloaded). It is four files and a header
# (tests/interpose_check.h says which holds what), compiled in the one
# command that links them.
INTERPOSE_CHECK_SRCS := $(addprefix tests/interpose_check,.c _reduce.c _irregular.c _errors.c)
$(MPI_BUILD)/tests/interpose_check: $(INTERPOSE_CHECK_SRCS) tests/interpose_check.h | $(STAMP)
	@mkdir -p $(@D)
	$(CC) -I. $(MPI_CFLAGS) $(CFLAGS) -o $@ $(INTERPOSE_CHECK_SRCS) $(MPI_LIBS)

# The same library with AddressSanitizer + UBSan, for tests/interpose.sh,
# which preloads the sanitizer runtimes before it (the program itself is
# not sanitized). Not named libkcoll_pmpi.so beside build/asan/kcal, where
# kcal run would find it.
PMPI_ASAN_LIB := $(MPI_BUILD)/pic-asan/libkcoll_pmpi.so
PMPI_ASAN_OBJS := $(patsubst %.c,$(MPI_BUILD)/pic-asan/%.o,$(INTERPOSE_SRCS) $(KCOLL_SRCS) $(KCOLL_MODEL_SRCS) $(GEN_SRCS))

$(MPI_BUILD)/pic-asan/%.o: CPPFLAGS += -DKCOLL_TEST_HOOKS
$(MPI_BUILD)/pic-asan/%.o: %.c | $(STAMP)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(MPI_CFLAGS) $(PKG_CFLAGS) $(CFLAGS) $(SANFLAGS) -fPIC -fvisibility=hidden -MMD -MP -c $< -o $@

$(PMPI_ASAN_LIB): $(PMPI_ASAN_OBJS) interpose/exports.map
	$(CC) $(CFLAGS) $(SANFLAGS) -shared -Wl,-soname,libkcoll_pmpi.so \
	  -Wl,--version-script=interpose/exports.map \
	  -o $@ $(filter %.o,$^) $(MPI_LIBS) -lm

TEST_EXTRA_BINS += $(PMPI_LIB) $(PMPI_ASAN_LIB) $(MPI_BUILD)/tests/interpose_check
MPI_TEST_PROGS += $(PMPI_LIB) $(PMPI_ASAN_LIB) $(MPI_BUILD)/tests/interpose_check

# scripts/bench-interposer's program: the interposer's overhead on calls it
# hands to the MPI library (not part of `make`).
INTERPOSE_BENCH := $(MPI_BUILD)/kcal-interpose-bench
$(INTERPOSE_BENCH): bench/overhead_bench.c | $(STAMP)
	@mkdir -p $(@D)
	$(CC) $(MPI_CFLAGS) $(CFLAGS) -o $@ $< $(MPI_LIBS)
