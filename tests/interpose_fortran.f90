! interpose_fortran: the five collectives and MPI_ALLREDUCE and MPI_REDUCE
! from Fortran (`use mpi`), checked against the values they must hold, for
! tests/interpose_fortran.sh, which runs it under the interposer
! (libkcoll_pmpi.so). Open MPI's Fortran bindings call PMPI_* directly, so
! only the interposer's Fortran names (mpi_bcast_ ...) can catch these
! calls; MPI_IN_PLACE arrives as the address of a common block. Blocks of
! 1, 1000 and 20000 elements of DOUBLE PRECISION, INTEGER and a derived
! contiguous type (2 DOUBLE PRECISION), roots 0 and p-1, in place and not;
! the reductions on DOUBLE PRECISION (MPI_SUM of values every order sums
! exactly) and INTEGER (MPI_MAX); MPI_ALLTOALLV and MPI_ALLGATHERV of
! DOUBLE PRECISION with counts that differ by pair (1 to 3 times the
! block), blocks received in reverse rank order with gaps, in place and
! not. The closing MPI_ALLREDUCE of the failure counts is counted too.
! Rank 0 prints "expect <coll> kcoll <calls>" (p > 1: every call is on
! MPI_COMM_WORLD) and "interpose_fortran p=P: N checks, E failed".
program interpose_fortran
  use mpi
  implicit none
  integer, parameter :: ncoll = 9
  character(len=10), parameter :: names(ncoll) = &
       [character(len=10) :: 'bcast', 'scatter', 'gather', 'allgather', 'alltoall', &
        'allreduce', 'reduce', 'alltoallv', 'allgatherv']
  integer :: ierr, rank, p, ni, root, ri, ip, pair, kind, c
  integer :: counts(3) = [1, 1000, 20000]
  integer(kind=8) :: calls(ncoll)
  integer :: failed, checks, all_failed, vlen
  character(len=MPI_MAX_LIBRARY_VERSION_STRING) :: version
  logical :: mpich
  double precision, allocatable :: ds(:), dr(:)
  integer, allocatable :: is(:), ir(:)

  call mpi_init(ierr)
  call mpi_comm_rank(MPI_COMM_WORLD, rank, ierr)
  call mpi_comm_size(MPI_COMM_WORLD, p, ierr)
  call mpi_type_contiguous(2, MPI_DOUBLE_PRECISION, pair, ierr)
  call mpi_type_commit(pair, ierr)
  call mpi_get_library_version(version, vlen, ierr)
  mpich = index(version, 'MPICH') > 0
  calls = 0
  failed = 0
  checks = 0

  do kind = 1, 3
    do ni = 1, 3
      do ri = 1, 2
        root = 0
        if (ri == 2) root = p - 1
        do ip = 0, 1
          if (kind == 2) then
            call ints(counts(ni), root, ip == 1)
          else
            call doubles(counts(ni), root, ip == 1, kind == 3)
          end if
          if (kind == 1) call sums(counts(ni), root, ip == 1)
          if (kind == 1 .and. ri == 1) call irregular(counts(ni), ip == 1)
        end do
      end do
    end do
  end do

  call mpi_type_free(pair, ierr)
  call mpi_allreduce(failed, all_failed, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call count_call(6)
  if (rank == 0) then
    if (p > 1) then
      do c = 1, ncoll
        write (*, '(a,a,a,i0)') 'expect ', trim(names(c)), ' kcoll ', calls(c)
      end do
    end if
    write (*, '(a,i0,a,i0,a,i0,a)') 'interpose_fortran p=', p, ': ', checks, &
         ' checks on rank 0, ', all_failed, ' failed in all'
  end if
  call mpi_finalize(ierr)
  if (all_failed /= 0) stop 1

contains

  ! The value element i of rank r's block b holds.
  double precision function dval(r, b, i)
    integer, intent(in) :: r, b, i
    dval = r * 1.0d6 + b * 1.0d3 + i * 0.5d0
  end function

  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    checks = checks + 1
    if (.not. ok) then
      failed = failed + 1
      if (failed <= 10) write (0, '(a,i0,a,a)') 'interpose_fortran: FAIL rank ', rank, ': ', what
    end if
  end subroutine

  subroutine count_call(c)
    integer, intent(in) :: c
    calls(c) = calls(c) + 1
  end subroutine

  ! DOUBLE PRECISION blocks of n elements, or n/2 elements of the pair type
  ! (the same bytes) when use_pair.
  subroutine doubles(n, root, in_place, use_pair)
    integer, intent(in) :: n, root
    logical, intent(in) :: in_place, use_pair
    integer :: i, b, cnt, dtype
    logical :: ok
    dtype = MPI_DOUBLE_PRECISION
    cnt = n
    if (use_pair) then
      if (mod(n, 2) /= 0) return
      dtype = pair
      cnt = n / 2
    end if
    allocate (ds(n * p), dr(n * p))

    ! bcast from root
    do i = 1, n
      dr(i) = -1
      if (rank == root) dr(i) = dval(root, 0, i)
    end do
    call mpi_bcast(dr, cnt, dtype, root, MPI_COMM_WORLD, ierr)
    call count_call(1)
    ok = ierr == MPI_SUCCESS
    do i = 1, n
      ok = ok .and. dr(i) == dval(root, 0, i)
    end do
    call check(ok, 'bcast')

    ! scatter: block b of the root's buffer to rank b
    do b = 0, p - 1
      do i = 1, n
        ds(b * n + i) = dval(root, b, i)
      end do
    end do
    dr(1:n) = -1
    if (in_place .and. rank == root) then
      call mpi_scatter(ds, cnt, dtype, MPI_IN_PLACE, cnt, dtype, root, MPI_COMM_WORLD, ierr)
    else
      call mpi_scatter(ds, cnt, dtype, dr, cnt, dtype, root, MPI_COMM_WORLD, ierr)
    end if
    call count_call(2)
    ok = ierr == MPI_SUCCESS
    do i = 1, n
      if (in_place .and. rank == root) then
        ok = ok .and. ds(root * n + i) == dval(root, root, i)
      else
        ok = ok .and. dr(i) == dval(root, rank, i)
      end if
    end do
    call check(ok, 'scatter')

    ! gather: rank b's block to block b at the root
    dr = -1
    do i = 1, n
      ds(i) = dval(rank, 0, i)
      if (in_place .and. rank == root) dr(root * n + i) = dval(root, 0, i)
    end do
    if (in_place .and. rank == root) then
      call mpi_gather(MPI_IN_PLACE, cnt, dtype, dr, cnt, dtype, root, MPI_COMM_WORLD, ierr)
    else
      call mpi_gather(ds, cnt, dtype, dr, cnt, dtype, root, MPI_COMM_WORLD, ierr)
    end if
    call count_call(3)
    ok = ierr == MPI_SUCCESS
    if (rank == root) then
      do b = 0, p - 1
        do i = 1, n
          ok = ok .and. dr(b * n + i) == dval(b, 0, i)
        end do
      end do
    end if
    call check(ok, 'gather')

    ! allgather (in place: each rank's block already at its place)
    dr = -1
    do i = 1, n
      ds(i) = dval(rank, 1, i)
      dr(rank * n + i) = dval(rank, 1, i)
    end do
    if (in_place) then
      call mpi_allgather(MPI_IN_PLACE, cnt, dtype, dr, cnt, dtype, MPI_COMM_WORLD, ierr)
    else
      call mpi_allgather(ds, cnt, dtype, dr, cnt, dtype, MPI_COMM_WORLD, ierr)
    end if
    call count_call(4)
    ok = ierr == MPI_SUCCESS
    do b = 0, p - 1
      do i = 1, n
        ok = ok .and. dr(b * n + i) == dval(b, 1, i)
      end do
    end do
    call check(ok, 'allgather')

    ! alltoall: block b of rank r goes to rank b's block r
    do b = 0, p - 1
      do i = 1, n
        ds(b * n + i) = dval(rank, b, i)
      end do
    end do
    if (in_place) then
      dr = ds
      call mpi_alltoall(MPI_IN_PLACE, cnt, dtype, dr, cnt, dtype, MPI_COMM_WORLD, ierr)
    else
      dr = -1
      call mpi_alltoall(ds, cnt, dtype, dr, cnt, dtype, MPI_COMM_WORLD, ierr)
    end if
    call count_call(5)
    ok = ierr == MPI_SUCCESS
    do b = 0, p - 1
      do i = 1, n
        ok = ok .and. dr(b * n + i) == dval(b, rank, i)
      end do
    end do
    call check(ok, 'alltoall')
    deallocate (ds, dr)
  end subroutine

  ! MPI_ALLREDUCE and MPI_REDUCE (to root) of DOUBLE PRECISION with
  ! MPI_SUM: element i sums dval(r, 2, i) over the ranks r, exact in any
  ! order (multiples of 0.5 far below 2**53).
  subroutine sums(n, root, in_place)
    integer, intent(in) :: n, root
    logical, intent(in) :: in_place
    integer :: i, r
    logical :: ok
    double precision :: want
    allocate (ds(n), dr(n))
    do i = 1, n
      ds(i) = dval(rank, 2, i)
    end do
    if (in_place) then
      dr = ds
      call mpi_allreduce(MPI_IN_PLACE, dr, n, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
    else
      dr = -1
      call mpi_allreduce(ds, dr, n, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
    end if
    call count_call(6)
    ok = ierr == MPI_SUCCESS
    do i = 1, n
      want = 0
      do r = 0, p - 1
        want = want + dval(r, 2, i)
      end do
      ok = ok .and. dr(i) == want
    end do
    call check(ok, 'allreduce')
    ! reduce: in place at the root only (MPI's rule). MPICH 4.0.2 crashes
    ! in its own reduce in place at a root other than 0 (pmodels/mpich#6540),
    ! which a call libkcoll hands it would reach: not there.
    if (in_place .and. rank == root .and. (root == 0 .or. .not. mpich)) then
      dr = ds
      call mpi_reduce(MPI_IN_PLACE, dr, n, MPI_DOUBLE_PRECISION, MPI_SUM, root, MPI_COMM_WORLD, ierr)
    else
      dr = -1
      call mpi_reduce(ds, dr, n, MPI_DOUBLE_PRECISION, MPI_SUM, root, MPI_COMM_WORLD, ierr)
    end if
    call count_call(7)
    ok = ierr == MPI_SUCCESS
    do i = 1, n
      ds(i) = 0
      do r = 0, p - 1
        ds(i) = ds(i) + dval(r, 2, i)
      end do
      if (rank == root) ok = ok .and. dr(i) == ds(i)
    end do
    call check(ok, 'reduce')
    deallocate (ds, dr)
  end subroutine

  ! The v-collectives' block from rank a to rank b: 1 to 3 times n
  ! elements, the same both ways (alltoallv in place needs it).
  integer function vcount(n, a, b)
    integer, intent(in) :: n, a, b
    vcount = n * (1 + mod(a + b, 3))
  end function

  ! MPI_ALLTOALLV and MPI_ALLGATHERV of DOUBLE PRECISION: sent blocks in
  ! rank order, received ones in reverse rank order with gaps of 2
  ! elements (which must keep their -1), in place and not.
  subroutine irregular(n, in_place)
    integer, intent(in) :: n
    logical, intent(in) :: in_place
    integer :: scnt(0:p - 1), sdsp(0:p - 1), rcnt(0:p - 1), rdsp(0:p - 1)
    integer :: i, b, at, rlen
    logical :: ok, gap
    double precision, allocatable :: vs(:), vr(:)
    at = 0
    do b = 0, p - 1
      scnt(b) = vcount(n, rank, b)
      sdsp(b) = at
      at = at + scnt(b)
    end do
    rlen = 0
    do b = p - 1, 0, -1
      rcnt(b) = vcount(n, b, rank)
      rdsp(b) = rlen + 2
      rlen = rlen + 2 + rcnt(b)
    end do
    allocate (vs(max(at, 1)), vr(rlen + 2))
    ! alltoallv: block b of rank r holds dval(r, b, i)
    do b = 0, p - 1
      do i = 1, scnt(b)
        vs(sdsp(b) + i) = dval(rank, b, i)
      end do
    end do
    vr = -1
    if (in_place) then
      do b = 0, p - 1
        do i = 1, rcnt(b)
          vr(rdsp(b) + i) = dval(rank, b, i)
        end do
      end do
      call mpi_alltoallv(MPI_IN_PLACE, scnt, sdsp, MPI_DOUBLE_PRECISION, vr, rcnt, rdsp, &
           MPI_DOUBLE_PRECISION, MPI_COMM_WORLD, ierr)
    else
      call mpi_alltoallv(vs, scnt, sdsp, MPI_DOUBLE_PRECISION, vr, rcnt, rdsp, &
           MPI_DOUBLE_PRECISION, MPI_COMM_WORLD, ierr)
    end if
    call count_call(8)
    ok = ierr == MPI_SUCCESS
    gap = .true.
    do b = 0, p - 1
      do i = 1, rcnt(b)
        ok = ok .and. vr(rdsp(b) + i) == dval(b, rank, i)
      end do
      gap = gap .and. vr(rdsp(b)) == -1 .and. vr(rdsp(b) - 1) == -1
    end do
    call check(ok .and. gap, 'alltoallv double precision')
    ! allgatherv: rank b's block of vcount(n, b, 0) elements dval(b, 0, i)
    rlen = 0
    do b = p - 1, 0, -1
      rcnt(b) = vcount(n, b, 0)
      rdsp(b) = rlen + 2
      rlen = rlen + 2 + rcnt(b)
    end do
    deallocate (vr)
    allocate (vr(rlen + 2))
    vr = -1
    do i = 1, rcnt(rank)
      vs(i) = dval(rank, 0, i)
      if (in_place) vr(rdsp(rank) + i) = vs(i)
    end do
    if (in_place) then
      call mpi_allgatherv(MPI_IN_PLACE, 0, MPI_DOUBLE_PRECISION, vr, rcnt, rdsp, &
           MPI_DOUBLE_PRECISION, MPI_COMM_WORLD, ierr)
    else
      call mpi_allgatherv(vs, rcnt(rank), MPI_DOUBLE_PRECISION, vr, rcnt, rdsp, &
           MPI_DOUBLE_PRECISION, MPI_COMM_WORLD, ierr)
    end if
    call count_call(9)
    ok = ierr == MPI_SUCCESS
    do b = 0, p - 1
      do i = 1, rcnt(b)
        ok = ok .and. vr(rdsp(b) + i) == dval(b, 0, i)
      end do
      ok = ok .and. vr(rdsp(b)) == -1 .and. vr(rdsp(b) - 1) == -1
    end do
    call check(ok, 'allgatherv double precision')
    deallocate (vs, vr)
  end subroutine

  ! INTEGER: bcast and allgather, in place for the latter; allreduce (MPI_MAX).
  subroutine ints(n, root, in_place)
    integer, intent(in) :: n, root
    logical, intent(in) :: in_place
    integer :: i, b
    logical :: ok
    allocate (is(n), ir(n * p))
    do i = 1, n
      ir(i) = -1
      if (rank == root) ir(i) = root * 100000 + i
    end do
    call mpi_bcast(ir, n, MPI_INTEGER, root, MPI_COMM_WORLD, ierr)
    call count_call(1)
    ok = ierr == MPI_SUCCESS
    do i = 1, n
      ok = ok .and. ir(i) == root * 100000 + i
    end do
    call check(ok, 'bcast integer')
    ir = -1
    do i = 1, n
      is(i) = rank * 100000 + i
      ir(rank * n + i) = is(i)
    end do
    if (in_place) then
      call mpi_allgather(MPI_IN_PLACE, n, MPI_INTEGER, ir, n, MPI_INTEGER, MPI_COMM_WORLD, ierr)
    else
      call mpi_allgather(is, n, MPI_INTEGER, ir, n, MPI_INTEGER, MPI_COMM_WORLD, ierr)
    end if
    call count_call(4)
    ok = ierr == MPI_SUCCESS
    do b = 0, p - 1
      do i = 1, n
        ok = ok .and. ir(b * n + i) == b * 100000 + i
      end do
    end do
    call check(ok, 'allgather integer')
    ! allreduce, MPI_MAX: the highest rank's
    ir = -1
    call mpi_allreduce(is, ir, n, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD, ierr)
    call count_call(6)
    ok = ierr == MPI_SUCCESS
    do i = 1, n
      ok = ok .and. ir(i) == (p - 1) * 100000 + i
    end do
    call check(ok, 'allreduce integer max')
    deallocate (is, ir)
  end subroutine
end program
