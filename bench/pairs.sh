# pairs.sh - the arithmetic the paired overhead scripts share
# (checkpoint_overhead.sh, verify_overhead.sh): each pair is one run
# without and one with the feature, as "wall cpu wall cpu" on a line of a
# times file; sourced, not run.

# pair_line I "WALL0 CPU0 WALL1 CPU1": prints pair I with its two ratios.
pair_line() {
    echo "$2" | awk -v i="$1" '{
        printf "pair %d: wall %.2f / %.2f s (%.4f), cpu %.2f / %.2f s (%.4f)\n",
               i, $1, $3, $3 / $1, $2, $4, $4 / $2 }'
}

# pair_summary TIMES: the ratios of the medians and of the totals of the
# pairs in the file TIMES.
pair_summary() {
    _median() { sort -n -k"$2" "$1" | awk -v c="$2" '{ v[NR] = $c } END {
        print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
    awk -v w0="$(_median "$1" 1)" -v c0="$(_median "$1" 2)" \
        -v w1="$(_median "$1" 3)" -v c1="$(_median "$1" 4)" '
        { sw0 += $1; sc0 += $2; sw1 += $3; sc1 += $4 }
        END {
            printf "median: wall ratio %.4f, cpu ratio %.4f\n", w1 / w0, c1 / c0
            printf "total:  wall ratio %.4f, cpu ratio %.4f\n", sw1 / sw0, sc1 / sc0 }' "$1"
}
