#!/bin/sh
# checkpoint_overhead.sh - what --checkpoint costs: runs the same count with
# and without a journal, alternately, PAIRS times, and prints each pair's
# wall-time and CPU-time (user + sys) ratios, then the ratios of the
# medians and of the totals.  Alternating keeps slow drifts of a shared
# machine from landing on one side only; CPU time is the steadier measure
# when other jobs compete for the cores.
#
# Usage: bench/checkpoint_overhead.sh PATH_TO_NQUEENS [N] [PAIRS] [THREADS]
set -eu
exe=${1:?usage: $0 PATH_TO_NQUEENS [N] [PAIRS] [THREADS]}
n=${2:-17}
pairs=${3:-5}
threads=${4:-2}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

# Prints "wall cpu" of one run.
measure() {
    /usr/bin/time -f "%e %U %S" -o "$dir/time" \
        "$exe" "$n" -e mirror -t "$threads" --no-progress "$@" > /dev/null
    awk '{ printf "%.3f %.3f\n", $1, $2 + $3 }' "$dir/time"
}

echo "N=$n mirror, $threads threads, $pairs pairs: without / with --checkpoint"
: > "$dir/times"
i=0
while [ "$i" -lt "$pairs" ]; do
    rm -f "$dir/run.journal"
    if [ $((i % 2)) -eq 0 ]; then
        a=$(measure); b=$(measure --checkpoint "$dir/run.journal")
    else
        b=$(measure --checkpoint "$dir/run.journal"); a=$(measure)
    fi
    echo "$a $b" | awk -v i="$((i + 1))" '{
        printf "pair %d: wall %.2f / %.2f s (%.4f), cpu %.2f / %.2f s (%.4f)\n",
               i, $1, $3, $3 / $1, $2, $4, $4 / $2 }'
    echo "$a $b" >> "$dir/times"
    i=$((i + 1))
done
# Median of column $1 of the times file.
median() { sort -n -k"$1" "$dir/times" | awk -v c="$1" '{ v[NR] = $c } END {
    print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
awk -v w0="$(median 1)" -v c0="$(median 2)" -v w1="$(median 3)" -v c1="$(median 4)" '
    { sw0 += $1; sc0 += $2; sw1 += $3; sc1 += $4 }
    END {
        printf "median: wall ratio %.4f, cpu ratio %.4f\n", w1 / w0, c1 / c0
        printf "total:  wall ratio %.4f, cpu ratio %.4f\n", sw1 / sw0, sc1 / sc0 }' "$dir/times"
