# qbench --sweep: Gelem/s and GB/s against the element count (log scale).
# Dashed lines: where the working set (bytes read + written) fills L1d, L2, L3.
set terminal svg size 1000,820 dynamic noenhanced font 'sans,11' background rgb 'white'
set output 'docs/perf_sweep.svg'
set datafile separator ','
set datafile missing NaN
set logscale x 2
set xrange [1024:67108864]
set grid
set key outside right top
set format x '%.0s%c'
set xlabel 'elements (source tensor)'
set arrow from 6553.6, graph 0 to 6553.6, graph 1 nohead dashtype 2 linecolor rgb 'gray40'
set label 'L1d 32 KiB' at 6553.6, graph 0.97 left offset 0.5,0 font 'sans,9'
set arrow from 209715.2, graph 0 to 209715.2, graph 1 nohead dashtype 2 linecolor rgb 'gray40'
set label 'L2 1 MiB' at 209715.2, graph 0.97 left offset 0.5,0 font 'sans,9'
set arrow from 6710886.4, graph 0 to 6710886.4, graph 1 nohead dashtype 2 linecolor rgb 'gray40'
set label 'L3 32 MiB' at 6710886.4, graph 0.97 right offset -0.5,0 font 'sans,9'
set multiplot layout 2,1 title 'Quantize f32:u8 per_tensor sweep 1024:67108864, 2 threads'
set ylabel 'Gelem/s'
plot 'docs/perf_sweep.csv' every ::1 using 1:(strcol(3) eq 'auto:jit' ? $6 : NaN) with linespoints linewidth 2 title 'auto:jit', \
     'docs/perf_sweep.csv' every ::1 using 1:(strcol(3) eq 'dnnl' ? $6 : NaN) with linespoints linewidth 2 title 'dnnl', \
     'docs/perf_sweep.csv' every ::1 using 1:(strcol(3) eq 'ref' ? $6 : NaN) with linespoints linewidth 2 title 'ref', \
     'docs/perf_sweep.csv' every ::1 using 1:(strcol(3) eq 'onednn' ? $6 : NaN) with linespoints linewidth 2 title 'onednn', \
     'docs/perf_sweep.csv' every ::1 using 1:(strcol(3) eq 'roofline' ? $6 : NaN) with linespoints dashtype 3 linewidth 2 title 'roofline'
set ylabel 'GB/s (read + written)'
plot 'docs/perf_sweep.csv' every ::1 using 1:(strcol(3) eq 'auto:jit' ? $5 : NaN) with linespoints linewidth 2 title 'auto:jit', \
     'docs/perf_sweep.csv' every ::1 using 1:(strcol(3) eq 'dnnl' ? $5 : NaN) with linespoints linewidth 2 title 'dnnl', \
     'docs/perf_sweep.csv' every ::1 using 1:(strcol(3) eq 'ref' ? $5 : NaN) with linespoints linewidth 2 title 'ref', \
     'docs/perf_sweep.csv' every ::1 using 1:(strcol(3) eq 'onednn' ? $5 : NaN) with linespoints linewidth 2 title 'onednn', \
     'docs/perf_sweep.csv' every ::1 using 1:(strcol(3) eq 'roofline' ? $5 : NaN) with linespoints dashtype 3 linewidth 2 title 'roofline'
unset multiplot
