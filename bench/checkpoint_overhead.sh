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
. "$(dirname "$0")/pairs.sh"
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
    pair_line "$((i + 1))" "$a $b"
    echo "$a $b" >> "$dir/times"
    i=$((i + 1))
done
pair_summary "$dir/times"
