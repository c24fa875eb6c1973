# Bash completion for nqueens, nqueens-mpi and nqueens-bench: options,
# engines, listing formats and file names.  Self-contained (plain bash,
# no bash-completion helpers), so test/packaging/test_completion.py can
# drive it in any bash.  The option lists follow each tool's --help; that
# test compares them.

# Sets _nq_cur (the word being completed) and _nq_prev (the option it is a
# value of, if any).  Bash splits "--engine=mi" at '=' (COMP_WORDBREAKS
# holds it), so the option may stand two words back.
_nqueens_words()
{
    _nq_cur=${COMP_WORDS[COMP_CWORD]}
    _nq_prev=""
    ((COMP_CWORD > 0)) && _nq_prev=${COMP_WORDS[COMP_CWORD - 1]}
    if [[ $_nq_cur == "=" ]]; then
        _nq_cur=""
    fi
    if [[ $_nq_prev == "=" ]] && ((COMP_CWORD > 1)); then
        _nq_prev=${COMP_WORDS[COMP_CWORD - 2]}
    fi
}

# Offers the words of $1 that start with $2.
_nqueens_offer()
{
    mapfile -t COMPREPLY < <(compgen -W "$1" -- "$2")
}

# Offers file names that start with $1.
_nqueens_files()
{
    compopt -o filenames 2>/dev/null
    mapfile -t COMPREPLY < <(compgen -f -- "$1")
}

# nqueens and nqueens-mpi (they share one option parser).
_nqueens()
{
    local _nq_cur _nq_prev
    _nqueens_words
    COMPREPLY=()
    case $_nq_prev in
    -e | --engine) _nqueens_offer "auto plain mirror full mitm" "$_nq_cur"; return ;;
    --format) _nqueens_offer "board columns" "$_nq_cur"; return ;;
    --checkpoint | --output) _nqueens_files "$_nq_cur"; return ;;
    --split-depth) _nqueens_offer "1 2 3 4 5 6 7 8" "$_nq_cur"; return ;;
    --schedule) _nqueens_offer "tasks dynamic guided static" "$_nq_cur"; return ;;
    --verify) _nqueens_offer "0.01 0.1 1" "$_nq_cur"; return ;;
    --memory) _nqueens_offer "4G 8G 16G 32G" "$_nq_cur"; return ;;
    -t | --threads | --limit | --rank-timeout) return ;; # a number: nothing to offer
    esac
    if [[ $_nq_cur == -* ]]; then
        local mpi_only=""
        [[ ${COMP_WORDS[0]##*/} == nqueens-mpi ]] && mpi_only="--rank-timeout"
        _nqueens_offer "-t --threads -e --engine --split-depth --schedule --json -q --quiet --output
            --solutions --limit --format --progress --no-progress --checkpoint
            --verify --memory -h --help -V --version $mpi_only" "$_nq_cur"
    fi
}

# nqueens-bench: --engine takes a comma-separated list, completed item by item.
_nqueens_bench()
{
    local _nq_cur _nq_prev
    _nqueens_words
    COMPREPLY=()
    case $_nq_prev in
    -e | --engine)
        local done_items=${_nq_cur%"${_nq_cur##*,}"}
        mapfile -t COMPREPLY < <(compgen -P "$done_items" \
            -W "auto plain mirror full mitm" -- "${_nq_cur##*,}")
        compopt -o nospace 2>/dev/null
        return
        ;;
    --csv | --json | --plot | --markdown) _nqueens_files "$_nq_cur"; return ;;
    --split-depth) _nqueens_offer "1 2 3 4 5 6 7 8" "$_nq_cur"; return ;;
    --schedule)
        local done_items=${_nq_cur%"${_nq_cur##*,}"}
        mapfile -t COMPREPLY < <(compgen -P "$done_items" \
            -W "tasks dynamic guided static" -- "${_nq_cur##*,}")
        compopt -o nospace 2>/dev/null
        return
        ;;
    --proc-bind) _nqueens_offer "false true close spread primary" "$_nq_cur"; return ;;
    --places) _nqueens_offer "threads cores ll_caches numa_domains sockets" "$_nq_cur"; return ;;
    --memory) _nqueens_offer "4G 8G 16G 32G" "$_nq_cur"; return ;;
    -n | --n | -t | --threads | -r | --repeat | --warmup | --ranks | --audit | --project | \
        --project-limit | --project-part | --min-runs | --max-runs | --precision) return ;;
    esac
    if [[ $_nq_cur == -* ]]; then
        _nqueens_offer "-n --n -t --threads -e --engine -r --repeat --min-runs --max-runs
            --precision --warmup --split-depth --csv --json --markdown --plot --schedule
            --memory --proc-bind --places -q --quiet
            --profile --predict --cores --ranks --audit --project --project-limit --project-part
            -h --help -V --version" "$_nq_cur"
    fi
}

complete -F _nqueens nqueens nqueens-mpi
complete -F _nqueens_bench nqueens-bench
