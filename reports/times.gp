# times.gp: measured times against the model for one collective and p.
# Called by `kcal report` (reports/plots.c) as
#   gnuplot -e "datafile='…'; outfile='…'; ttl=\"…\"; titles='a b c'; nseries=3; models='0 1'; fmodels='0 1'; xt='\"1K\" 1024, …'" times.gp
# (models: the indices of the series that have a paper-model line; fmodels,
# optional: those with a full-model line; xt: the x tics; xr, optional: the
# x range, given when there is one size only)
# datafile holds one block per series (separated by two blank lines), columns
#   size_bytes median_us low_us high_us predicted_us predicted_full_us
# (low, high: the first and third quartile, or min and max for a bench CSV
# without quartiles)
# (NaN: no such model). Series i is drawn in colour i: its measurements as
# points with quartile error bars, the paper model's prediction for it as a
# solid line of the same colour, the full model's as a dashed one.
set terminal pngcairo size 1000,700 enhanced font "DejaVu Sans,10"
set output outfile
set title ttl noenhanced
set logscale xy 2
set logscale y 10
set xlabel "message size n (bytes; per process block, whole message for bcast)"
set ylabel "time (µs)"
if (exists("xt")) eval("set xtics (".xt.")")
if (exists("xr")) eval("set xrange ".xr)
set format y "%g"
set grid xtics ytics mytics lc rgb "#dddddd"
set key outside right top box opaque noenhanced
if (!exists("fmodels")) fmodels = ""
if (strlen(fmodels) > 0) { set key title "points: measured median\nbars: quartiles\nsolid: paper model\ndashed: full model" } else { set key title "points: measured median\nbars: quartiles\nlines: model" }
set datafile missing "NaN"
set mxtics default
# Keep the first and last points off the frame.
set offsets graph 0.02, graph 0.02, 0, 0
# 12 distinguishable colours; the MPI library's own collective comes last
# and is drawn in black by the caller's ordering (see plots.c).
array colours[12] = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", \
                     "#8c564b", "#e377c2", "#17becf", "#bcbd22", "#7f7f7f", \
                     "#393b79", "#000000"]
colour(i) = colours[(i % 11) + 1]
# The reference series: mpi black, auto dark grey, the copy limit light grey.
col(i) = (word(titles, i + 1) eq "mpi") ? "#000000" : \
         (word(titles, i + 1) eq "auto") ? "#555555" : \
         (word(titles, i + 1) eq "limit") ? "#aaaaaa" : colour(i)
# Series at one size are dodged sideways by a few hundredths of an octave so
# their error bars do not hide each other; the model lines stay exact.
dodge(i) = 2 ** (0.035 * (i - (nseries - 1) / 2.0))
points = sprintf("for [i=0:%d] datafile index i using ($1*dodge(i)):2:3:4 with yerrorbars pt 7 ps 1.1 lw 1.5 lc rgb col(i) title word(titles, i + 1)", nseries - 1)
lines = "for [m in models] datafile index int(m) using 1:5 with lines lw 2 lc rgb col(int(m)) notitle"
flines = "for [m in fmodels] datafile index int(m) using 1:6 with lines lw 2 dt 2 lc rgb col(int(m)) notitle"
# gnuplot cannot loop over an empty word list: plot lines only when a
# series has a model.
all = points
if (strlen(models) > 0) { all = all.", ".lines }
if (strlen(fmodels) > 0) { all = all.", ".flines }
eval("plot ".all)
