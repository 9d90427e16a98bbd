# mpi_flavor.sh: the shell face of the MPI seam (common/mpi_flavor.h is
# kcal's, common/mpi_flavor.mk make's), sourced by the MPI test scripts,
# reports/make-report and scripts/bench-*:
#
#   . "$root/common/mpi_flavor.sh"     # with $KCAL_MPI: openmpi (default) or mpich
#
# It checks $KCAL_MPI, exports it (kcal bench and kcal probe read it too),
# exports what the launcher needs (Open MPI's permission to run as root,
# where unset) and sets:
#   mpi_title     Open MPI, MPICH
#   mpi_launcher  the launcher: mpirun.openmpi, else mpirun; mpiexec.mpich,
#                 else mpiexec.hydra, else mpiexec (empty: none found)
#   mpi_run       array: the launcher with what a test run of more ranks
#                 than cores needs: Open MPI --oversubscribe, yield when
#                 idle, no binding; MPICH's hydra none (it oversubscribes
#                 and does not bind by default; MPICH 4's ch4 device has no
#                 yield setting, so oversubscribed ranks spin: ~2x slower)
#   mpi_x         the launcher option that sets a variable in every rank,
#                 followed by NAME=VALUE: -x (Open MPI), -genv (hydra)
#   mpi_cc, mpi_cxx, mpi_fc  the compiler wrappers: mpicc.openmpi (else
#                 mpicc), mpicxx.openmpi, mpifort.openmpi; mpicc.mpich,
#                 mpicxx.mpich, mpifort.mpich
#   mpi_suffix    of the MPI build's library names: empty, -mpich
#   mpi_lib       libkcoll's name: libkcoll$mpi_suffix
#   mpi_build     the folder of the MPI programs: $BUILD for openmpi,
#                 $BUILD-mpich for mpich ($BUILD default build)
#   mpi_max_p     the most ranks the correctness suites launch on this
#                 library: 8 with Open MPI; 4 with MPICH, whose ranks spin
#                 oversubscribed (algos_reduce.sh [mpich] on the 2-core Zen 5
#                 guest, 2026-12-07: p = 5 67 s, p = 8 107 s, p = 5 in
#                 virtual nodes 170 s, of 542 s). The cases of p = 5 and 8
#                 are the algorithms', which the Open MPI round runs; the
#                 MPICH round checks the MPICH build up to p = 4.
#   mpi_ps P...   prints those of the P that are at most mpi_max_p
# and defines mpi_require, which exits 77 (skip) with the reason when this
# flavor's launcher is not installed.
KCAL_MPI=${KCAL_MPI:-openmpi}
case $KCAL_MPI in
  openmpi)
    mpi_title="Open MPI"
    mpi_launcher=mpirun.openmpi
    command -v "$mpi_launcher" >/dev/null 2>&1 || mpi_launcher=mpirun
    mpi_cc=mpicc.openmpi mpi_cxx=mpicxx.openmpi mpi_fc=mpifort.openmpi
    command -v "$mpi_cc" >/dev/null 2>&1 || mpi_cc=mpicc
    command -v "$mpi_cxx" >/dev/null 2>&1 || mpi_cxx=mpicxx
    command -v "$mpi_fc" >/dev/null 2>&1 || mpi_fc=mpifort
    mpi_run=("$mpi_launcher" --oversubscribe --mca mpi_yield_when_idle 1 --bind-to none)
    mpi_x=-x
    mpi_suffix=
    mpi_build=${BUILD:-build}
    mpi_max_p=8
    if [ "$(id -u)" = 0 ]; then
      export OMPI_ALLOW_RUN_AS_ROOT=${OMPI_ALLOW_RUN_AS_ROOT:-1}
      export OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=${OMPI_ALLOW_RUN_AS_ROOT_CONFIRM:-1}
    fi
    ;;
  mpich)
    mpi_title="MPICH"
    mpi_launcher=
    for l in mpiexec.mpich mpiexec.hydra mpiexec; do
      command -v "$l" >/dev/null 2>&1 && { mpi_launcher=$l; break; }
    done
    mpi_cc=mpicc.mpich mpi_cxx=mpicxx.mpich mpi_fc=mpifort.mpich
    mpi_run=("$mpi_launcher")
    mpi_x=-genv
    mpi_suffix=-mpich
    mpi_build=${BUILD:-build}-mpich
    mpi_max_p=4
    ;;
  *)
    echo "mpi_flavor.sh: KCAL_MPI=$KCAL_MPI: openmpi or mpich" >&2
    exit 2
    ;;
esac
export KCAL_MPI
mpi_lib=libkcoll$mpi_suffix

mpi_ps() {
  local p
  for p in "$@"; do [ "$p" -le "$mpi_max_p" ] && echo "$p"; done
  return 0
}

mpi_require() {
  local what
  case $KCAL_MPI in
    openmpi) what="mpirun.openmpi or mpirun" ;;
    mpich) what="mpiexec.mpich (or mpiexec.hydra)"
           # Plain mpiexec may be another library's: take it only when
           # MPICH's pkg-config says MPICH is here.
           [ "$mpi_launcher" = mpiexec ] && ! pkg-config --exists mpich 2>/dev/null && mpi_launcher= ;;
  esac
  if [ -z "$mpi_launcher" ] || ! command -v "$mpi_launcher" >/dev/null 2>&1; then
    echo "skip: $mpi_title is not installed ($what not found; MPI=$KCAL_MPI scripts/install-deps installs it)"
    exit 77
  fi
}
