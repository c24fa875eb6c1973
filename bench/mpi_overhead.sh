#!/bin/sh
# mpi_overhead.sh - what nqueens-mpi costs against nqueens on the same
# machine with the same total thread count T: for each N, `nqueens -t T`,
# `nqueens-mpi` on 1 rank x T threads and on T ranks x 1 thread, RUNS
# rounds.  Each round runs the three once, in an order rotated from round
# to round, so that a slow drift of a shared machine lands on every
# configuration alike.  Every total is checked against the first one.
#
# The MPI times are whole-process wall times including mpiexec's start-up
# and the job's end: that is what a user waits for, and the ratios in the
# table are of those.  So that the part Open MPI takes whatever the program
# does can be told apart, each round also times `mpiexec -n R true` (the
# launcher alone) and every configuration on N=1 (start-up and shutdown
# with MPI_Init and MPI_Finalize), and a second table gives the ratios
# with each configuration's N=1 median taken off both sides ("less
# start-up").
#
# With -p, one more run of each MPI configuration per N is made with
# NQ_MPI_TRACE=1 and its phases are printed rank by rank: when each rank
# left each phase (seconds since mpiexec was started), and the process's
# and the main thread's CPU seconds by then (nqueens-mpi(1), ENVIRONMENT),
# then Open MPI's own share of that run against nqueens' median: the
# launcher's time while no rank exists, and the ranks' CPU time in
# loading Open MPI and MPI_Init, spread over the T cores.
#
# Prints whether the CPUs ran alike at the start and at the end
# (`nqueens-bench --cores`, where the build has it), each run, then per N
# the median wall and CPU (user + sys) times
# and the ratio of each MPI median to nqueens' median, and the Markdown
# tables of the wall medians that docs/performance.md shows.
#
# Usage: bench/mpi_overhead.sh [-r RUNS] [-t T] [-e ENGINE] [-s SCHEDULE] [-p] BUILD_DIR N...
#   RUNS      rounds, at least 3 (default 3)
#   T         total threads (default 2)
#   ENGINE    passed to both tools as -e (default: auto)
#   SCHEDULE  passed to both tools as --schedule (default: theirs)
#   -p        also print each MPI configuration's phases (one traced run)
# Example (the issue's measurement): bench/mpi_overhead.sh -r 5 build 19 20
set -eu
runs=3 threads=2 engine=auto schedule= phases=0
usage="usage: $0 [-r RUNS] [-t T] [-e ENGINE] [-s SCHEDULE] [-p] BUILD_DIR N..."
while getopts r:t:e:s:p opt; do
    case $opt in
    r) runs=$OPTARG ;;
    t) threads=$OPTARG ;;
    e) engine=$OPTARG ;;
    s) schedule=$OPTARG ;;
    p) phases=1 ;;
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
for n in "$@"; do
    case $n in *[!0-9]* | '') echo "$0: N must be a number: $n" >&2; exit 2 ;; esac
done
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

# The command of configuration $1 (0: nqueens, 1: 1 rank x T, 2: T ranks x
# 1, 3: mpiexec -n 1 true, 4: mpiexec -n T true) for board $2, in "$@" of
# the caller's `set --`: printed one word a line, for `set -- $(...)`.
command_of() {
    case $1 in
    0) echo "$nqueens $2 -t $threads" ;;
    1) echo "mpiexec -n 1 $mpiexec_args $nqueens_mpi $2 -t $threads" ;;
    2) echo "mpiexec -n $threads $mpiexec_args $nqueens_mpi $2 -t 1" ;;
    3) echo "mpiexec -n 1 $mpiexec_args true" ;;
    4) echo "mpiexec -n $threads $mpiexec_args true" ;;
    esac
}

# Runs configuration $1 for board $2 with the options $3; prints "wall cpu
# total".  CPU time is the process's children: mpiexec's ranks included.
measure() {
    # shellcheck disable=SC2046
    set -- $(command_of "$1" "$2") $3
    if ! /usr/bin/time -f "%e %U %S" -o "$dir/time" "$@" > "$dir/out" 2> "$dir/err"; then
        echo "$0: failed: $*" >&2
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
    3) echo "mpiexec -n 1 true (the launcher alone)" ;;
    4) echo "mpiexec -n $threads true" ;;
    esac
}

# Median of the numbers on stdin.
median() {
    sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# Median of column $2 of configuration $1's lines in file $3.
median_of() {
    awk -v c="$1" -v k="$2" '$1 == c { print $k }' "$3" | median
}

# One traced run of MPI configuration $1 on board $2: its phases, rank by
# rank, from mpiexec's start, and Open MPI's share of it against nqueens'
# median wall time $3.
trace_phases() {
    # shellcheck disable=SC2046
    set -- "$1" "$2" "$3" $(command_of "$1" "$2") $extra
    config=$1 board=$2 base=$3
    shift 3
    start=$(date +%s.%N)
    if ! NQ_MPI_TRACE=1 "$@" > "$dir/out" 2> "$dir/err"; then
        echo "$0: failed: $*" >&2
        cat "$dir/err" >&2
        exit 1
    fi
    end=$(date +%s.%N)
    echo "N=$board phases of $(name "$config") (one run, NQ_MPI_TRACE; s since mpiexec started,"
    echo "  CPU s by then of the process and of the thread that wrote the line):"
    # After the phases, Open MPI's own share of the run: the launcher's
    # time while no rank exists (before the first one started and after
    # the last one's MPI_Finalize), when nothing can count, and the CPU
    # time the ranks had spent by the end of MPI_Init (loading Open MPI's
    # libraries, then MPI_Init), taken from the T cores that count.  A
    # whole-process ratio cannot sit much below 1 plus this share.
    grep '^nqueens-mpi: trace: ' "$dir/err" | sort -t' ' -k4,4n -k6,6n |
        awk -v s="$start" -v e="$end" -v t="$threads" -v w0="$base" -v who="$(name 0)" '
            function share(x) { return w0 > 0 ? sprintf("%.1f%%", 100 * x / w0) : "n/a" }
            {
                what = $0; sub(/^[^:]*: [^:]*: [^:]*: [^:]*: /, "", what)
                printf "  rank %2s %8.3f s  cpu %7.3f  thread %7.3f  %s\n",
                       $4 + 0, $6 - s, $8, $10, what
            }
            / process started / { if (first == "" || $6 < first) first = $6 }
            / MPI_Init done / { init += $8 }
            / MPI_Finalize done/ { if ($6 > last) last = $6 }
            END {
                printf "  mpiexec ended %8.3f s\n", e - s
                before = first - s; after = e - last; spread = init / t
                printf "  Open MPI alone: the launcher %.3f s before the first rank", before
                printf " and %.3f s after the last (%s of %s, %.2f s),\n",
                       after, share(before + after), who, w0
                printf "    loading and MPI_Init %.3f CPU s in all ranks, %.3f s of %d cores",
                       init, spread, t
                printf " (%s): %s in all\n", share(spread), share(before + after + spread)
            }'
}

echo "nqueens $("$nqueens" --version | head -n 1), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "$(mpiexec --version 2>&1 | head -n 1)"
echo "T = $threads threads in all, engine $engine${schedule:+, schedule $schedule}, $runs rounds"
# Whether the CPUs run alike, at the start and at the end: a CPU that
# shares its physical core with another machine's busy thread reads slow,
# and a round that lands on it says nothing about MPI (nqueens-bench(1),
# --cores).
cores() {
    bench=$build/bench/nqueens-bench
    if [ -x "$bench" ]; then echo "$1 $("$bench" --cores)"; fi
}
cores "at the start:"
: > "$dir/table"
: > "$dir/bare"
: > "$dir/startup"
round=0
while [ "$round" -lt "$runs" ]; do
    for k in 0 1 2 3 4; do
        config=$(((k + round) % 5))
        # N=1: every engine counts it; the schedule does not matter
        measure "$config" 1 "--no-progress -q" > "$dir/one" || exit 1
        echo "$config $(cat "$dir/one")" >> "$dir/startup"
    done
    round=$((round + 1))
done
for c in 3 4 0 1 2; do
    echo "start-up and shutdown, median of $runs: $(name "$c")$([ "$c" -le 2 ] && echo " on N=1"):" \
        "wall $(median_of "$c" 2 "$dir/startup") s, cpu $(median_of "$c" 3 "$dir/startup") s"
done
for c in 0 1 2; do
    eval "one$c=\$(median_of $c 2 \"\$dir/startup\")"
done
for n in "$@"; do
    : > "$dir/runs"
    round=0
    while [ "$round" -lt "$runs" ]; do
        for k in 0 1 2; do
            config=$(((k + round) % 3))
            measure "$config" "$n" "$extra" > "$dir/one" || exit 1
            # shellcheck disable=SC2046
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
        eval "wall$c=\$(median_of $c 2 \"\$dir/runs\")"
        eval "cpu$c=\$(median_of $c 3 \"\$dir/runs\")"
    done
    # shellcheck disable=SC2154
    for c in 0 1 2; do
        eval "w=\$wall$c; u=\$cpu$c"
        awk -v n="$n" -v what="$(name "$c")" -v w="$w" -v u="$u" -v w0="$wall0" -v u0="$cpu0" \
            'BEGIN { printf "N=%s median %-34s wall %8.3f s (%.3fx), cpu %8.3f s (%.3fx)\n",
                     n, what ":", w, w / w0, u, u / u0 }'
    done
    # shellcheck disable=SC2154
    awk -v n="$n" -v w0="$wall0" -v w1="$wall1" -v w2="$wall2" \
        'BEGIN { printf "| N=%s | %.2f s | %.2f s (%.3fx) | %.2f s (%.3fx) |\n",
                 n, w0, w1, w1 / w0, w2, w2 / w0 }' >> "$dir/table"
    # shellcheck disable=SC2154
    awk -v n="$n" -v w0="$wall0" -v w1="$wall1" -v w2="$wall2" \
        -v s0="$one0" -v s1="$one1" -v s2="$one2" \
        'function ratio(b) { return b0 > 0 ? sprintf("%.3fx", b / b0) : "n/a" }
         BEGIN { b0 = w0 - s0; b1 = w1 - s1; b2 = w2 - s2
                 printf "| N=%s | %.2f s | %.2f s (%s) | %.2f s (%s) |\n",
                 n, b0, b1, ratio(b1), b2, ratio(b2) }' >> "$dir/bare"
    if [ "$phases" -eq 1 ]; then
        # shellcheck disable=SC2154
        trace_phases 1 "$n" "$wall0"
        trace_phases 2 "$n" "$wall0"
    fi
done
cores "at the end:"
echo
echo "Whole-process wall times, medians of $runs rounds:"
echo
echo "| count | \`nqueens -t $threads\` | \`nqueens-mpi\`, 1 rank × $threads threads | $threads ranks × 1 thread |"
echo "|---|---:|---:|---:|"
cat "$dir/table"
echo
echo "Less start-up (each configuration's N=1 median taken off):"
echo
echo "| count | \`nqueens -t $threads\` | \`nqueens-mpi\`, 1 rank × $threads threads | $threads ranks × 1 thread |"
echo "|---|---:|---:|---:|"
cat "$dir/bare"
