# mpi_flavor.mk: which MPI library the MPI side of kcal is built against,
# the make face of the MPI seam (common/mpi_flavor.h is kcal's, and
# common/mpi_flavor.sh the test scripts'). Everything that includes mpi.h
# (libkcoll, kcal-bench-mpi, kcal-sm-bench, the MPI test programs) is
# built for one library per make run; kcal itself uses no MPI and is the
# same binary for both.
#
#   make                 MPI=openmpi: pkg-config ompi-c; objects and programs
#                        in $(BUILD)/, algos/libkcoll.{a,so}
#   make MPI=mpich       pkg-config mpich (MPICH, and so the MPICH ABI that
#                        MVAPICH and Intel MPI share); objects and programs in
#                        $(BUILD)-mpich/, algos/libkcoll-mpich.{a,so}
#
# The two ABIs differ (MPI_Comm is an int in MPICH, a pointer in Open MPI),
# so each build has its own folder and library name and both live side by
# side. A new MPI-specific program adds its rule with $(MPI_BUILD),
# $(MPI_CFLAGS) and $(MPI_LIBS) and is built for both.
MPI ?= openmpi
ifeq ($(MPI),openmpi)
MPI_PKG   := ompi-c
MPI_BUILD := $(BUILD)
KCOLL_LIB := algos/libkcoll
else ifeq ($(MPI),mpich)
MPI_PKG   := mpich
MPI_BUILD := $(BUILD)-mpich
KCOLL_LIB := algos/libkcoll-mpich
else
$(error MPI=$(MPI): say MPI=openmpi (the default) or MPI=mpich)
endif
# The MPICH build folder, whatever this run builds: make test runs the
# MPICH suite from it when MPICH is installed.
MPICH_BUILD := $(BUILD)-mpich

# Recursive (=) so pkg-config runs after install-deps has made it available.
MPI_CFLAGS = $(shell pkg-config --cflags $(MPI_PKG))
MPI_LIBS   = $(shell pkg-config --libs $(MPI_PKG))
