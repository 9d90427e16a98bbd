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
# so each build has its own folder and library names and both live side by
# side. A new MPI-specific program or library (the PMPI interposer, say)
# puts its objects under $(MPI_BUILD)/, compiles with $(MPI_CFLAGS), links
# $(MPI_LIBS), names a library algos/libNAME$(MPI_SUFFIX).so, and joins
# `lib:`; then `make MPI=mpich` builds it for MPICH too (docs/mpi.md).
MPI ?= openmpi
ifeq ($(MPI),openmpi)
MPI_PKG    := ompi-c
MPI_SUFFIX :=
MPI_BUILD  := $(BUILD)
else ifeq ($(MPI),mpich)
MPI_PKG    := mpich
MPI_SUFFIX := -mpich
MPI_BUILD  := $(BUILD)-mpich
else
$(error MPI=$(MPI): say MPI=openmpi (the default) or MPI=mpich)
endif
KCOLL_LIB := algos/libkcoll$(MPI_SUFFIX)
# The MPICH build folder, whatever this run builds: make test runs the
# MPICH suite from it when MPICH is installed.
MPICH_BUILD := $(BUILD)-mpich

# Recursive (=) so pkg-config runs after install-deps has made it available.
MPI_CFLAGS = $(shell pkg-config --cflags $(MPI_PKG))
MPI_LIBS   = $(shell pkg-config --libs $(MPI_PKG))
