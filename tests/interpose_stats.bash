# Sourced by the interposer's tests (tests/interpose*.sh): check_stats,
# which holds a KCOLL_STATS table against what the program says rank 0's
# calls must show. Not a test itself (scripts/run-tests runs *.sh).

# check_stats OUT ERR: every "expect COLL WHAT N" line of OUT against
# the one table in ERR. WHAT kcoll is the sum of the collective's rows of
# calls libkcoll took: an algorithm, or "mpi" where libkcoll chose the MPI
# library's collective (its verified choice, or CMA forbidden) —
# not local, and not mpi(<why>), the calls the interposer handed on. No
# other rows may appear: each collective's calls in the table add up to
# its expected ones. Prints what differs; status 1 then.
check_stats() {
  local out=$1 err=$2
  awk '
    FNR == NR && $1 == "expect" { want[$2 " " $3] = $4; total[$2] += $4; next }
    FNR != NR && /^kcoll stats/ { on = 1; tables++; next }
    FNR != NR && /^kcoll decisions/ { on = 0; next }
    # A row: collective, the name of what ran (words: "pairwise (messages
    # < 4096)"), calls, bytes, seconds.
    FNR != NR && on && NF >= 5 && $1 != "collective" && $(NF - 2) ~ /^[0-9]+$/ {
      what = $2
      if (what != "local" && what !~ /^mpi\(/) what = "kcoll"
      got[$1 " " what] += $(NF - 2); seen[$1] += $(NF - 2)
    }
    END {
      bad = 0
      if (tables != 1) { print "  " tables + 0 " stats tables, want 1"; bad = 1 }
      for (k in want) if (got[k] != want[k]) { print "  " k ": " got[k] + 0 " calls, want " want[k]; bad = 1 }
      for (c in seen) if (seen[c] != total[c]) { print "  " c ": " seen[c] " calls in the table, want " total[c] + 0; bad = 1 }
      exit bad
    }' "$out" "$err"
}

