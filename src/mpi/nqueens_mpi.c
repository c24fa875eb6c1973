/*
 * nqueens_mpi.c - the hybrid MPI + OpenMP counter.
 *
 * Same options and output as `nqueens` (options.c), but the job's chunks
 * are shared among MPI ranks, each running its own OpenMP threads.  Rank 0
 * plans the job (for the threads of all ranks together), broadcasts the
 * resolved plan, and every rank plans the same job and proves it by its
 * identity before any work starts.  Only rank 0 prints.  Every rank leaves
 * through MPI_Finalize with the same decision, so mpiexec's exit status is
 * the run's: 0, 2 for bad input, 1 for a failure, 128 + signal when
 * cancelled.
 */
#include <inttypes.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <mpi.h>

#include "coordinator.h"
#include "job.h"
#include "options.h"
#include "protocol.h"
#include "worker.h"

#define PROG "nqueens-mpi"

/* Plan status meaning "go ahead and count"; any other value is the exit
 * status every rank returns at once. */
#define PLAN_RUN (-1)

static atomic_int cancel_flag;

/* Records the signal; the threads stop between units and rank 0 reports. */
static void on_signal(int sig)
{
    atomic_store(&cancel_flag, sig);
}

static void install_signal_handlers(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

/*
 * Rank 0: acts on the command line and plans the job.  Fills plan[] and
 * sets *job when there is something to count; otherwise plan[STATUS] holds
 * the exit status (help, version, bad input, a listing already printed).
 */
static void plan_on_rank0(int action, const char *err, nq_cli_options *opt, int total_threads,
                          int64_t *plan, nq_job **job)
{
    plan[NQ_MPI_PLAN_STATUS] = PLAN_RUN;
    switch (action) {
    case NQ_CLI_HELP:
        nq_cli_usage(stdout, PROG);
        plan[NQ_MPI_PLAN_STATUS] = 0;
        return;
    case NQ_CLI_VERSION:
        printf(PROG " %s\n", nq_version());
        plan[NQ_MPI_PLAN_STATUS] = 0;
        return;
    case NQ_CLI_BAD:
        nq_cli_report_bad(PROG, err);
        plan[NQ_MPI_PLAN_STATUS] = NQ_CLI_EXIT_USAGE;
        return;
    default: break;
    }
    if (opt->list) { /* listing is quick and sequential: rank 0 alone does it */
        plan[NQ_MPI_PLAN_STATUS] = nq_cli_list(opt, PROG);
        return;
    }
    /* Plan for the threads of all ranks, so the automatic split depth gives
     * every thread of the whole run enough units to balance. */
    nq_settings s = opt->settings;
    s.threads = total_threads < NQ_MAX_THREADS ? total_threads : NQ_MAX_THREADS;
    int ret = nq_job_create(job, &s);
    if (ret < 0) {
        fprintf(stderr, PROG ": %s\n", nq_strerror(ret));
        plan[NQ_MPI_PLAN_STATUS] = ret == NQ_ENOMEM ? 1 : NQ_CLI_EXIT_USAGE;
        return;
    }
    plan[NQ_MPI_PLAN_N] = s.n;
    plan[NQ_MPI_PLAN_ENGINE] = nq_job_engine(*job);
    plan[NQ_MPI_PLAN_SPLIT] = nq_job_split_depth(*job);
    plan[NQ_MPI_PLAN_UNITS] = (int64_t)nq_job_units(*job);
    plan[NQ_MPI_PLAN_IDENTITY] = (int64_t)nq_job_identity(*job);
}

/* Other ranks: plans the job rank 0 resolved.  Returns 1 when it is the
 * very same job (same identity and unit count), 0 otherwise. */
static int plan_like_rank0(const int64_t *plan, const nq_cli_options *opt, nq_job **job)
{
    nq_settings s = opt->settings;
    s.n = (int)plan[NQ_MPI_PLAN_N];
    s.engine = (enum nq_engine)plan[NQ_MPI_PLAN_ENGINE];
    s.split_depth = (int)plan[NQ_MPI_PLAN_SPLIT];
    if (nq_job_create(job, &s) < 0)
        return 0;
    return nq_job_identity(*job) == (uint64_t)plan[NQ_MPI_PLAN_IDENTITY] &&
           nq_job_units(*job) == (uint64_t)plan[NQ_MPI_PLAN_UNITS];
}

/* Rank 0: turns the outcome into output and an exit status. */
static int report(int ret, const nq_mpi_outcome *out, const nq_cli_options *opt, nq_job *job,
                  int ranks, int total_threads, double seconds)
{
    if (ret == NQ_ECANCELLED) {
        int sig = atomic_load(&cancel_flag);
        fprintf(stderr, PROG ": cancelled by signal %d after %" PRIu64 " of %" PRIu64 " units\n",
                sig, out->units_done, nq_job_units(job));
        return 128 + (sig > 0 ? sig : SIGTERM);
    }
    if (ret < 0) {
        fprintf(stderr, PROG ": %s\n", out->message[0] ? out->message : nq_strerror(ret));
        return 1;
    }
    nq_result r;
    memset(&r, 0, sizeof r);
    r.total = out->sum.total;
    r.unique = out->sum.unique;
    r.has_unique = nq_engine_has_unique(nq_job_engine(job));
    r.nodes = out->sum.nodes;
    r.has_nodes = job->ops->has_nodes;
    r.subproblems = nq_job_units(job);
    r.units_resumed = out->units_resumed;
    r.seconds = seconds;
    r.engine = nq_job_engine(job);
    r.threads = total_threads;
    r.split_depth = nq_job_split_depth(job);
    nq_cli_print_result(opt, &r, ranks);
    return 0;
}

int main(int argc, char **argv)
{
    int provided = 0, rank = 0, ranks = 1;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    const double start = MPI_Wtime();
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    atomic_init(&cancel_flag, 0);
    install_signal_handlers();

    /* Every rank parses (threads are per rank); rank 0's reading decides. */
    nq_cli_options opt;
    char err[256] = "";
    int action = nq_cli_parse(argc, argv, &opt, err, sizeof err);
    int threads = nq_resolve_threads(action == NQ_CLI_RUN ? opt.settings.threads : 0);
    int total_threads = 0;
    MPI_Allreduce(&threads, &total_threads, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);

    int64_t plan[NQ_MPI_PLAN_FIELDS_] = {0};
    nq_job *job = NULL;
    if (rank == 0) {
        if (provided < MPI_THREAD_FUNNELED && action == NQ_CLI_RUN) {
            fprintf(stderr, PROG ": the MPI library lacks MPI_THREAD_FUNNELED support\n");
            plan[NQ_MPI_PLAN_STATUS] = 1;
        } else {
            plan_on_rank0(action, err, &opt, total_threads, plan, &job);
        }
    }
    MPI_Bcast(plan, NQ_MPI_PLAN_FIELDS_, MPI_INT64_T, 0, MPI_COMM_WORLD);
    int status = (int)plan[NQ_MPI_PLAN_STATUS];
    if (status != PLAN_RUN) {
        MPI_Finalize();
        return status;
    }

    /* Each rank names itself if its job differs; the lowest such rank wins. */
    int mine = rank == 0 || plan_like_rank0(plan, &opt, &job) ? ranks : rank;
    int first_bad = ranks;
    MPI_Allreduce(&mine, &first_bad, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (first_bad < ranks) {
        if (rank == 0)
            fprintf(stderr,
                    PROG ": rank %d planned a different job than rank 0 (mismatched "
                    "nqueens-mpi builds?)\n", first_bad);
        nq_job_free(&job);
        MPI_Finalize();
        return 1;
    }

    if (rank == 0) {
        nq_mpi_coord_config cfg = {
            .job = job,
            .ranks = ranks,
            .threads = threads,
            .cancel = &cancel_flag,
        };
        nq_mpi_outcome out;
        int ret = nq_mpi_coordinate(&cfg, &out);
        status = report(ret, &out, &opt, job, ranks, total_threads, MPI_Wtime() - start);
        if (out.abandoned) {
            /* A rank is stuck or gone: end the job instead of waiting in
             * MPI_Finalize for it (the journal is already flushed). */
            fprintf(stderr, PROG ": a rank did not stop within %.0f s; aborting the job\n",
                    NQ_MPI_STOP_GRACE);
            fflush(stdout);
            fflush(stderr);
            MPI_Abort(MPI_COMM_WORLD, status ? status : 1);
        }
    } else {
        int ret = nq_mpi_work(job, threads, &cancel_flag);
        int sig = atomic_load(&cancel_flag);
        status = ret == 0 ? 0 : ret == NQ_ECANCELLED ? 128 + (sig > 0 ? sig : SIGTERM) : 1;
    }
    nq_job_free(&job);
    MPI_Finalize();
    return status;
}
