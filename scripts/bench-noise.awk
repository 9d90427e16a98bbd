# bench-noise.awk: the one rule by which the benchmarks' verdicts count a
# ratio of two medians that falls short of 1.0 as a tie within their own
# noise, not a miss (scripts/bench-judge.awk's T1, scripts/bench-irregular.awk's
# V1; loaded with awk -f before them); scripts/bench-auto.awk marks its
# A1, A3 and A6 misses by the same rule, and judges them as before.
#
# Where both sides run at the copy limit (allgather and alltoall from 1
# MiB, alltoallv at p = 2 from 4K) the ratio is 1.00 +- that noise and was
# a coin toss, run after run (alltoall 8M 0.997 with halves 0.9 % and 1.6 %
# apart, Xeon guest, 2026-11-26). The noise of a median is taken from its
# run: the medians of the odd and of the even iterations (half1_s,
# half2_s) differ by d = |h1 - h2| / median, about twice the median's
# standard error, so sqrt(d_a^2 + d_b^2) is two standard errors of the
# ratio. Without the halves (d = 0): no allowance.

# d of one row: its halves' difference over its median.
function noise_d(h1, h2, med,   d) {
  d = med > 0 ? (h1 - h2) / med : 0
  return d < 0 ? -d : d
}

# Whether ratio x of medians with noise da and db reaches target within
# that noise (two standard errors of the ratio).
function noise_reaches(x, target, da, db) {
  return x >= target - sqrt(da ^ 2 + db ^ 2)
}

# Whether ratio x (< 1.0) of medians with noise da and db is a tie.
function noise_tie(x, da, db) {
  return noise_reaches(x, 1.0, da, db)
}
