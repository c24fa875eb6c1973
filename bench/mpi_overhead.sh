#!/bin/sh
# mpi_overhead.sh - what nqueens-mpi costs against nqueens on the same
# machine with the same total thread count T: for each N, `nqueens -t T`,
# `nqueens-mpi` on 1 rank x T threads and on T ranks x 1 thread, RUNS
# rounds.  Each round runs the three once, in an order rotated from round
# to round, so that a slow drift of a shared machine lands on every
# configuration alike.  Every total is checked against the first one.
# Prints each run, then per N the median wall and CPU (user + sys) times
# and the ratio of each MPI median to nqueens' median, and a Markdown table
# of the wall medians (the one in docs/performance.md).  The MPI times
# include mpiexec's start-up: that is what a user waits for.  So that it
# can be told apart from the count itself, each round also times every
# configuration on N=1 (start-up and shutdown alone), and the medians of
# those are printed as well.
#
# Usage: bench/mpi_overhead.sh [-r RUNS] [-t T] [-e ENGINE] [-s SCHEDULE] BUILD_DIR N...
#   RUNS      rounds, at least 3 (default 3)
#   T         total threads (default 2)
#   ENGINE    passed to both tools as -e (default: auto)
#   SCHEDULE  passed to both tools as --schedule (default: theirs)
# Example (the issue's measurement): bench/mpi_overhead.sh -r 5 build 19 20
set -eu
runs=3 threads=2 engine=auto schedule=
usage="usage: $0 [-r RUNS] [-t T] [-e ENGINE] [-s SCHEDULE] BUILD_DIR N..."
while getopts r:t:e:s: opt; do
    case $opt in
    r) runs=$OPTARG ;;
    t) threads=$OPTARG ;;
    e) engine=$OPTARG ;;
    s) schedule=$OPTARG ;;
    *) echo "$usage" >&2; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
[ $# -ge 2 ] || { echo "$usage" >&2; exit 2; }
case $runs in *[!0-9]* | '') echo "$0: RUNS must be a number" >&2; exit 2 ;; esac
case $threads in *[!0-9]* | '' | 0) echo "$0: T must be a number >= 1" >&2; exit 2 ;; esac
[ "$runs" -ge 3 ] || { echo "$0: RUNS must be at least 3 (medians of 3 or more)" >&2; exit 2; }
build=$1
shift
nqueens=$build/src/cli/nqueens
nqueens_mpi=$build/src/mpi/nqueens-mpi
for exe in "$nqueens" "$nqueens_mpi"; do
    [ -x "$exe" ] || { echo "$0: $exe not found: build first" >&2; exit 2; }
done
command -v mpiexec >/dev/null || { echo "$0: no mpiexec on PATH" >&2; exit 2; }
# Open MPI refuses root without these, and binds each rank to one core by
# default, which would pin a 1-rank x T-thread run to a single core.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mpiexec_args="--oversubscribe --bind-to none"
extra="-e $engine --no-progress -q"
[ -z "$schedule" ] || extra="$extra --schedule $schedule"

dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

# Runs configuration $1 (0: nqueens, 1: 1 rank x T, 2: T ranks x 1) for
# board $2; prints "wall cpu total".  CPU time is the process's children:
# mpiexec's ranks included.
measure() {
    case $1 in
    0) set -- "$2" "$nqueens" "$2" -t "$threads" ;;
    1) set -- "$2" mpiexec -n 1 $mpiexec_args "$nqueens_mpi" "$2" -t "$threads" ;;
    2) set -- "$2" mpiexec -n "$threads" $mpiexec_args "$nqueens_mpi" "$2" -t 1 ;;
    esac
    shift
    # shellcheck disable=SC2086
    if ! /usr/bin/time -f "%e %U %S" -o "$dir/time" "$@" $extra > "$dir/out" 2> "$dir/err"; then
        echo "$0: failed: $* $extra" >&2
        cat "$dir/err" >&2
        exit 1
    fi
    awk -v total="$(cat "$dir/out")" '{ printf "%.3f %.3f %s\n", $1, $2 + $3, total }' \
        "$dir/time"
}

name() {
    case $1 in
    0) echo "nqueens -t $threads" ;;
    1) echo "nqueens-mpi 1 rank x $threads threads" ;;
    2) echo "nqueens-mpi $threads ranks x 1 thread" ;;
    esac
}

# Median of the numbers on stdin.
median() {
    sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

echo "nqueens $("$nqueens" --version | head -n 1), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "T = $threads threads in all, engine $engine${schedule:+, schedule $schedule}, $runs rounds"
: > "$dir/table"
: > "$dir/startup"
round=0
while [ "$round" -lt "$runs" ]; do
    for k in 0 1 2; do
        config=$(((k + round) % 3))
        engine_was=$extra
        extra="--no-progress -q" # N=1: every engine counts it; the schedule does not matter
        measure "$config" 1 > "$dir/one" || exit 1
        extra=$engine_was
        echo "$config $(cat "$dir/one")" >> "$dir/startup"
    done
    round=$((round + 1))
done
for c in 0 1 2; do
    awk -v c=$c '$1 == c { print $2 }' "$dir/startup" | median > "$dir/one"
    echo "start-up and shutdown alone (N=1), median of $runs: $(name "$c"): wall $(cat "$dir/one") s"
done
for n in "$@"; do
    : > "$dir/runs"
    round=0
    while [ "$round" -lt "$runs" ]; do
        for k in 0 1 2; do
            config=$(((k + round) % 3))
            measure "$config" "$n" > "$dir/one" || exit 1
            set -- $(cat "$dir/one")
            echo "N=$n round $((round + 1)): $(name "$config"): wall $1 s, cpu $2 s"
            echo "$config $1 $2 $3" >> "$dir/runs"
        done
        round=$((round + 1))
    done
    totals=$(awk '{ print $4 }' "$dir/runs" | sort -u | wc -l)
    if [ "$totals" -ne 1 ]; then
        echo "$0: N=$n: the runs disagree on the total:" >&2
        awk '{ print $4 }' "$dir/runs" | sort | uniq -c >&2
        exit 1
    fi
    for c in 0 1 2; do
        eval "wall$c=\$(awk -v c=$c '\$1 == c { print \$2 }' \"\$dir/runs\" | median)"
        eval "cpu$c=\$(awk -v c=$c '\$1 == c { print \$3 }' \"\$dir/runs\" | median)"
    done
    # shellcheck disable=SC2154
    for c in 0 1 2; do
        eval "w=\$wall$c; u=\$cpu$c"
        awk -v n="$n" -v what="$(name "$c")" -v w="$w" -v u="$u" -v w0="$wall0" -v u0="$cpu0" \
            'BEGIN { printf "N=%s median %-34s wall %8.3f s (%.3fx), cpu %8.3f s (%.3fx)\n",
                     n, what ":", w, w / w0, u, u / u0 }'
    done
    awk -v n="$n" -v w0="$wall0" -v w1="$wall1" -v w2="$wall2" \
        'BEGIN { printf "| N=%s | %.2f s | %.2f s (%.2fx) | %.2f s (%.2fx) |\n",
                 n, w0, w1, w1 / w0, w2, w2 / w0 }' >> "$dir/table"
done
echo
echo "| count | \`nqueens -t $threads\` | \`nqueens-mpi\`, 1 rank x $threads threads | $threads ranks x 1 thread |"
echo "|---|---:|---:|---:|"
cat "$dir/table"
