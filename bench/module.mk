# bench/: the benchmark driver. bench/bench_cmd.c is `kcal bench` (compiled
# into kcal, see KCAL_SRCS); bench/bench_mpi.c is the MPI program it launches
# under mpirun, $(BUILD)/kcal-bench-mpi, linked against libkcoll.a and the
# two common/ modules it shares with kcal bench: cores (the core count, with
# hwloc) and capacity (the size checks), so both decide alike.
HWLOC_LIBS = $(shell pkg-config --libs hwloc)
KCOLL_BENCH := $(BUILD)/kcal-bench-mpi
BENCH_COMMON_OBJS := $(BUILD)/kcoll/common/cores.o $(BUILD)/kcoll/common/capacity.o

lib: $(KCOLL_BENCH)

$(KCOLL_BENCH): $(BUILD)/kcoll/bench/bench_mpi.o $(BENCH_COMMON_OBJS) algos/libkcoll.a
	$(CC) $(CFLAGS) -o $@ $< $(BENCH_COMMON_OBJS) algos/libkcoll.a $(MPI_LIBS) $(HWLOC_LIBS) -lm
