# algos/: libkcoll and the MPI benchmark program. (Filled in by the
# reference-collectives work; `lib` must exist for `make all`.)
.PHONY: lib
lib:
