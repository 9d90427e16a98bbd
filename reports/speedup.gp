# speedup.gp: measured speedup of the best kcoll algorithm over the MPI
# library's own collective, per collective and message size, for one p.
# Called by `kcal report` as
#   gnuplot -e "datafile='…'; outfile='…'; ttl='…'; ncols=5" speedup.gp
# datafile: a header line "size scatter gather …", then one row per size:
# the size label and one speedup per collective ("NaN" when not measured).
set terminal pngcairo size 1000,700 enhanced font "DejaVu Sans,10"
set output outfile
set title ttl noenhanced
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set datafile missing "NaN"
set xlabel "message size n (bytes)"
set ylabel "speedup over the MPI library (MPI time / best kcoll time)"
set yrange [0:*]
set grid ytics lc rgb "#dddddd"
set key outside right top noenhanced
set arrow 1 from graph 0, first 1 to graph 1, first 1 nohead dt 2 lw 2 lc rgb "#000000" front
set label 1 "1 = as fast as MPI" at graph 0.01, first 1 offset 0,0.7 front
array colours[5] = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd"]
plot for [c=2:ncols+1] datafile using c:xtic(1) title columnheader(c) lc rgb colours[((c - 2) % 5) + 1]
