#!/bin/sh
# verify_overhead.sh - what --verify costs: runs the same count without and
# with --verify FRACTION, alternately, PAIRS times, checks that both give
# the same total, and prints each pair's wall-time and CPU-time (user +
# sys) ratios, then the ratios of the medians and of the totals.  The
# pairs alternate which side runs first, so a slow drift of a shared
# machine does not land on one side only.
#
# Usage: bench/verify_overhead.sh PATH_TO_NQUEENS [N] [PAIRS] [THREADS] [FRACTION]
# With NQ_LAUNCH set (e.g. "mpiexec -n 2 --bind-to none") the program runs
# under it, so PATH may be nqueens-mpi.
set -eu
. "$(dirname "$0")/pairs.sh"
exe=${1:?usage: $0 PATH_TO_NQUEENS [N] [PAIRS] [THREADS] [FRACTION]}
n=${2:-17}
pairs=${3:-5}
threads=${4:-2}
fraction=${5:-0.01}
launch=${NQ_LAUNCH:-}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

# Prints "wall cpu total" of one run (cpu: this process's children, so
# every rank of a local mpiexec counts).
measure() {
    # shellcheck disable=SC2086 # the launcher is a command line, split on purpose
    /usr/bin/time -f "%e %U %S" -o "$dir/time" \
        $launch "$exe" "$n" -t "$threads" --no-progress -q "$@" > "$dir/out"
    printf '%s %s\n' "$(awk '{ printf "%.3f %.3f", $1, $2 + $3 }' "$dir/time")" \
        "$(cat "$dir/out")"
}

echo "N=$n, $threads threads, $pairs pairs: without / with --verify $fraction"
: > "$dir/times"
i=0
while [ "$i" -lt "$pairs" ]; do
    if [ $((i % 2)) -eq 0 ]; then
        a=$(measure); b=$(measure --verify "$fraction")
    else
        b=$(measure --verify "$fraction"); a=$(measure)
    fi
    set -- $a $b
    if [ "$3" != "$6" ]; then
        echo "totals differ: $3 without, $6 with --verify" >&2
        exit 1
    fi
    pair_line "$((i + 1))" "$1 $2 $4 $5"
    echo "$1 $2 $4 $5" >> "$dir/times"
    i=$((i + 1))
done
pair_summary "$dir/times"
