#!/usr/bin/env bash
# A one-node Slurm cluster on this machine, for the 'slow' suite and CI:
# munged, slurmctld and slurmd from Debian's packages, with every file they
# write (key, configuration, state, logs, sockets, pid files) in one
# private folder and their ports picked free, so it runs as root in a
# container without systemd, beside anything else on the machine, and
# leaves nothing behind.
#
#   cluster.sh start DIR       start the cluster in the empty folder DIR and
#                              wait until its node takes jobs; prints the
#                              line `export SLURM_CONF=DIR/slurm.conf` that
#                              points sbatch, srun, squeue... at it
#   cluster.sh stop DIR        stop the daemons started in DIR (SIGTERM, then
#                              SIGKILL after 10 s) and remove DIR
#   cluster.sh run CMD [ARG..] start a cluster in a new temporary folder, run
#                              CMD with SLURM_CONF set, stop the cluster and
#                              remove the folder whatever happens (CMD fails,
#                              start fails, SIGINT, SIGTERM); exits with
#                              CMD's status
#
# Exits 77 (meson's SKIP) when the Slurm or munge daemons are not installed
# (`NQ_EXTRA_PACKAGES="slurmctld slurmd slurm-client munge" bash .ci/setup`
# installs them), or 1 with NQ_SLURM_REQUIRED=1 (CI); 1 when the cluster
# does not start, showing its logs.  The daemons fork into the background:
# under `run`, a watcher in its own session stops them even when the script
# is killed with SIGKILL; after `start`, `stop` is the caller's to run.
set -euo pipefail

SBIN=(munged slurmctld slurmd)

need_daemons() {
    local d
    for d in "${SBIN[@]}" sbatch srun sinfo; do
        if ! PATH="$PATH:/usr/sbin:/sbin" command -v "$d" >/dev/null 2>&1; then
            echo "cluster.sh: $d is not installed (Debian: slurmctld slurmd slurm-client munge)" >&2
            [ "${NQ_SLURM_REQUIRED:-0}" = 1 ] && exit 1
            exit 77
        fi
    done
}

# A TCP port that nothing listens on now, for each daemon.
free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

show_logs() {
    local dir=$1 f
    for f in "$dir"/daemons.out "$dir"/munged.log "$dir"/slurmctld.log "$dir"/slurmd.log; do
        [ -f "$f" ] || continue
        echo "--- $f (last 40 lines)" >&2
        tail -n 40 "$f" >&2
    done
}

# Starts a daemon (it forks into the background) with its standard streams
# open: where one is closed (CI runs with no standard input) the daemon
# would take that number for a file or socket that its own redirection to
# /dev/null then replaces, and slurmd then fails every task launch.
daemon() {
    local dir=$1
    shift
    "$@" </dev/null >>"$dir/daemons.out" 2>&1
}

start() {
    local dir=$1
    need_daemons
    export PATH="$PATH:/usr/sbin:/sbin"
    [ -d "$dir" ] || mkdir -p "$dir"
    dir=$(cd "$dir" && pwd)
    chmod 0700 "$dir"
    mkdir -p "$dir/state" "$dir/spool"

    # munge: a fresh key, its socket and state in DIR.  Slurm's commands
    # and daemons find this munged through AuthInfo/CredType below.
    dd if=/dev/urandom of="$dir/munge.key" bs=1024 count=1 status=none
    chmod 0400 "$dir/munge.key"
    daemon "$dir" munged --force --key-file="$dir/munge.key" --socket="$dir/munge.sock" \
        --pid-file="$dir/munged.pid" --log-file="$dir/munged.log" \
        --seed-file="$dir/munged.seed" || { show_logs "$dir"; return 1; }

    # slurmd -C: this machine's CPUs, cores and memory as slurmd will see
    # them, so that the node is not drained for a mismatch.
    local node cpus host ctld_port node_port
    node=$(slurmd -C | head -n 1)
    cpus=$(sed -n 's/.* CPUs=\([0-9]*\).*/\1/p' <<<"$node")
    host=$(hostname -s)
    ctld_port=$(free_port)
    node_port=$(free_port)
    while [ "$node_port" = "$ctld_port" ]; do node_port=$(free_port); done

    # No cgroups (a container may have none it can use): processes are
    # tracked by process group, tasks are not bound to cores, and no
    # accounting is kept.  KillWait is the grace between SIGTERM and
    # SIGKILL at a time limit or scancel; nqueens needs well under a second.
    cat >"$dir/slurm.conf" <<EOF
ClusterName=nqtest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$node_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$dir/munge.sock
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/pgid
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/builtin
MpiDefault=none
ReturnToService=2
KillWait=10
MinJobAge=600
SwitchType=switch/none
LaunchParameters=use_interactive_step
NodeName=$host NodeAddr=127.0.0.1 $(sed 's/^NodeName=[^ ]* //; s/ UpTime=.*//' <<<"$node") State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP OverSubscribe=NO
EOF
    [ -n "$cpus" ] || { echo "cluster.sh: 'slurmd -C' printed no CPUs" >&2; return 1; }

    export SLURM_CONF="$dir/slurm.conf"
    daemon "$dir" slurmctld -f "$SLURM_CONF" || { show_logs "$dir"; return 1; }
    daemon "$dir" slurmd -f "$SLURM_CONF" || { show_logs "$dir"; return 1; }

    # Ready when the node is idle (it registers within a second or two;
    # 60 s allows for a loaded machine).
    local state=
    for _ in $(seq 1 120); do
        state=$(sinfo -h -N -o '%t' 2>/dev/null | head -n 1) || true
        [ "$state" = idle ] && break
        sleep 0.5
    done
    if [ "$state" != idle ]; then
        echo "cluster.sh: the node did not become idle in 60 s (state '${state:-none}')" >&2
        show_logs "$dir"
        return 1
    fi
    echo "export SLURM_CONF=$SLURM_CONF"
}

# Sends SIGTERM to the process whose pid is in FILE and waits for it to end
# (SIGKILL after 10 s).  A pid file whose process is gone is ignored.
stop_pidfile() {
    local file=$1 pid
    [ -s "$file" ] || return 0
    pid=$(cat "$file")
    kill -0 "$pid" 2>/dev/null || return 0
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 1 100); do
        kill -0 "$pid" 2>/dev/null || return 0
        sleep 0.1
    done
    kill -KILL "$pid" 2>/dev/null || true
}

stop() {
    local dir=$1
    [ -d "$dir" ] || return 0
    # slurmd first: it ends the jobs' steps it still runs.
    stop_pidfile "$dir/slurmd.pid"
    stop_pidfile "$dir/slurmctld.pid"
    stop_pidfile "$dir/munged.pid"
    rm -rf "$dir"
}

case "${1:-}" in
start)
    [ $# -eq 2 ] || { echo "usage: cluster.sh start DIR" >&2; exit 2; }
    start "$2" || { stop "$2"; exit 1; }
    ;;
stop)
    [ $# -eq 2 ] || { echo "usage: cluster.sh stop DIR" >&2; exit 2; }
    stop "$2"
    ;;
run)
    shift
    [ $# -ge 1 ] || { echo "usage: cluster.sh run CMD [ARG...]" >&2; exit 2; }
    need_daemons
    dir=$(mktemp -d "${TMPDIR:-/tmp}/nq-slurm.XXXXXX")
    child=
    # On a signal, CMD is ended first (SIGTERM, then its own cleanup), then
    # the daemons; CMD runs in the background so that the signal is taken
    # at once rather than when CMD ends.
    trap '[ -z "$child" ] || kill -TERM "$child" 2>/dev/null || true; [ -z "$child" ] || wait "$child" 2>/dev/null || true; stop "$dir"' EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM
    start "$dir" >/dev/null || exit 1
    # A watcher in a session of its own stops the cluster if this script is
    # killed before its trap can (meson sends SIGKILL to a timed-out test's
    # process group half a second after SIGTERM).
    setsid bash "$0" reap "$$" "$dir" </dev/null >/dev/null 2>&1 &
    export SLURM_CONF="$dir/slurm.conf"
    "$@" &
    child=$!
    status=0
    wait "$child" || status=$?
    child=
    exit "$status"
    ;;
reap)
    # reap PID DIR (for run): once process PID has ended, stop DIR's cluster.
    [ $# -eq 3 ] || exit 2
    while kill -0 "$2" 2>/dev/null && [ -d "$3" ]; do sleep 1; done
    stop "$3"
    ;;
*)
    echo "usage: cluster.sh start DIR | stop DIR | run CMD [ARG...]" >&2
    exit 2
    ;;
esac
