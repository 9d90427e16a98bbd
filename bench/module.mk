# bench/: the benchmark driver. bench/bench_cmd.c is `kcal bench` (compiled
# into kcal, see KCAL_SRCS); bench/bench_mpi.c is the MPI program it launches
# under mpirun, $(BUILD)/kcal-bench-mpi, linked against libkcoll.a.
HWLOC_LIBS = $(shell pkg-config --libs hwloc)
KCOLL_BENCH := $(BUILD)/kcal-bench-mpi

lib: $(KCOLL_BENCH)

$(KCOLL_BENCH): $(BUILD)/kcoll/bench/bench_mpi.o algos/libkcoll.a
	$(CC) $(CFLAGS) -o $@ $< algos/libkcoll.a $(MPI_LIBS) $(HWLOC_LIBS) -lm
