# probe/: the MPI helper `kcal probe` launches with mpirun to time the
# small-message shared-memory collectives (T_sm_X). It lives in probe/mpi/
# so the wildcard probe/*.c that makes up kcal does not pick it up.
SM_BENCH := $(BUILD)/kcal-sm-bench

$(SM_BENCH): probe/mpi/sm_bench.c | $(STAMP)
	@mkdir -p $(@D)
	$(CC) $(MPI_CFLAGS) $(CFLAGS) -o $@ $< $(MPI_LIBS)

all: $(SM_BENCH)
TEST_EXTRA_BINS += $(SM_BENCH)
kcal: | $(SM_BENCH)
