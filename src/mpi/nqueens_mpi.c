/*
 * nqueens_mpi.c - the hybrid MPI + OpenMP counter.
 *
 * Same options and output as `nqueens` (options.c, console.c), but the
 * job's chunks are shared among MPI ranks, each running its own OpenMP
 * threads.  Rank 0 plans the job (for the threads of all ranks together, or
 * as the checkpoint journal dictates), opens the journal, broadcasts the
 * resolved plan, and every rank plans the same job and proves it by its
 * identity before any work starts.  Only rank 0 prints and only rank 0
 * touches the journal.  Every rank leaves with the same decision, so
 * mpiexec's exit status is the run's: 0, 2 for bad input (journal trouble
 * included), 1 for a failure, 128 + signal when interrupted.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "cli/console.h"
#include "cli/options.h"
#include "cli/version.h"
#include "core/engine.h"
#include "api/plan.h"
#include "journal/journal.h"
#include "mpi/coordinator.h"
#include "mpi/nap.h"
#include "mpi/protocol.h"
#include "mpi/worker.h"

#define PROG "nqueens-mpi"

/* Plan status meaning "go ahead and count"; any other value is the exit
 * status every rank returns at once. */
#define PLAN_RUN (-1)

/*
 * Rank 0: acts on the command line, plans the job and opens the journal.
 * Fills plan[] and sets *job (and *journal with --checkpoint) when there is
 * something to count; otherwise plan[STATUS] holds the exit status (help,
 * version, bad input, unusable journal, a listing already printed).
 */
static void plan_on_rank0(int action, const char *err, nq_cli_options *opt, int total_threads,
                          int64_t *plan, nq_job **job, nq_journal **journal)
{
    plan[NQ_MPI_PLAN_STATUS] = PLAN_RUN;
    switch (action) {
    case NQ_CLI_HELP:
        nq_cli_usage(stdout, PROG);
        plan[NQ_MPI_PLAN_STATUS] = 0;
        return;
    case NQ_CLI_VERSION:
        nq_cli_print_version(stdout, PROG);
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
     * every thread of the whole run enough units to balance.  A journalled
     * run instead plans what its journal was written for (or a split that
     * depends on n alone), so any number of ranks and threads can resume. */
    nq_settings s = opt->settings;
    s.threads = total_threads < NQ_MAX_THREADS ? total_threads : NQ_MAX_THREADS;
    if (s.checkpoint_path)
        nq_plan_journalled(s.checkpoint_path, &s);
    int ret = nq_job_create(job, &s);
    if (ret < 0) {
        fprintf(stderr, PROG ": %s\n", nq_strerror(ret));
        plan[NQ_MPI_PLAN_STATUS] = ret == NQ_ENOMEM ? 1 : NQ_CLI_EXIT_USAGE;
        return;
    }
    if (s.checkpoint_path) {
        char detail[NQ_JOURNAL_DETAIL_MAX] = "";
        ret = nq_journal_open_detail(journal, s.checkpoint_path, *job, s.notice, s.notice_user,
                                     detail, sizeof detail);
        if (ret < 0) {
            /* Like nqueens: trouble with the file the user named is status 2. */
            fprintf(stderr, PROG ": %s\n", detail[0] ? detail : nq_strerror(ret));
            plan[NQ_MPI_PLAN_STATUS] = ret == NQ_ENOMEM ? 1 : NQ_CLI_EXIT_USAGE;
            nq_job_free(job);
            return;
        }
    }
    plan[NQ_MPI_PLAN_N] = s.n;
    plan[NQ_MPI_PLAN_ENGINE] = nq_job_engine(*job);
    plan[NQ_MPI_PLAN_SPLIT] = nq_job_split_depth(*job);
    plan[NQ_MPI_PLAN_UNITS] = (int64_t)nq_job_units(*job);
    plan[NQ_MPI_PLAN_IDENTITY] = (int64_t)nq_job_identity(*job);
    plan[NQ_MPI_PLAN_JOURNAL] = *journal != NULL;
}

/* Other ranks: plans the job rank 0 resolved.  Returns 1 when it is the
 * very same job (same identity and unit count), 0 otherwise. */
static int plan_like_rank0(const int64_t *plan, const nq_cli_options *opt, nq_job **job)
{
    nq_settings s = opt->settings;
    s.n = (int)plan[NQ_MPI_PLAN_N];
    s.engine = (enum nq_engine)plan[NQ_MPI_PLAN_ENGINE];
    s.split_depth = (int)plan[NQ_MPI_PLAN_SPLIT];
    s.checkpoint_path = NULL; /* rank 0's business */
    if (nq_job_create(job, &s) < 0)
        return 0;
    return nq_job_identity(*job) == (uint64_t)plan[NQ_MPI_PLAN_IDENTITY] &&
           nq_job_units(*job) == (uint64_t)plan[NQ_MPI_PLAN_UNITS];
}

/* Rank 0: turns the outcome into output and an exit status. */
static int report(int ret, const nq_mpi_outcome *out, const nq_cli_options *opt, nq_job *job,
                  int ranks, int total_threads, double seconds, int argc, char **typed)
{
    if (ret == NQ_ECANCELLED) {
        int sig = nq_cli_first_signal;
        if (opt->settings.checkpoint_path)
            nq_cli_print_resume_hint(PROG, out->units_done,
                                     "resume by running it again, with any number of ranks",
                                     argc, typed);
        else
            fprintf(stderr, PROG ": interrupted after %" PRIu64 " subproblems were done\n",
                    out->units_done);
        return 128 + (sig > 0 ? sig : 15);
    }
    if (ret < 0) {
        fprintf(stderr, PROG ": %s\n", out->message[0] ? out->message : nq_strerror(ret));
        return 1;
    }
    nq_result r;
    memset(&r, 0, sizeof r);
    r.total = out->sum.total;
    r.unique = out->sum.unique;
    r.has_unique = job->ops->has_unique;
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

    /* getopt_long permutes argv; the resume hint repeats it as typed. */
    char **typed = malloc(((size_t)argc + 1) * sizeof *typed);
    if (!typed) {
        fputs(PROG ": out of memory\n", stderr);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    memcpy(typed, argv, ((size_t)argc + 1) * sizeof *typed);

    /* Every rank parses (threads are per rank); rank 0's reading decides. */
    nq_cli_options opt;
    char err[256] = "";
    int action = nq_cli_parse(argc, argv, &opt, err, sizeof err);
    int threads = nq_resolve_threads(action == NQ_CLI_RUN ? opt.settings.threads : 0);
    int total_threads = 0;
    MPI_Allreduce(&threads, &total_threads, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);

    int64_t plan[NQ_MPI_PLAN_FIELDS_] = {0};
    nq_job *job = NULL;
    nq_journal *journal = NULL;
    nq_cli_progress_view view;
    if (rank == 0) {
        nq_cli_progress_setup(&opt, &view, PROG);
        if (provided < MPI_THREAD_FUNNELED && action == NQ_CLI_RUN) {
            fprintf(stderr, PROG ": the MPI library lacks MPI_THREAD_FUNNELED support\n");
            plan[NQ_MPI_PLAN_STATUS] = 1;
        } else {
            plan_on_rank0(action, err, &opt, total_threads, plan, &job, &journal);
        }
    }
    MPI_Bcast(plan, NQ_MPI_PLAN_FIELDS_, MPI_INT64_T, 0, MPI_COMM_WORLD);
    int status = (int)plan[NQ_MPI_PLAN_STATUS];
    if (status != PLAN_RUN) {
        free(typed);
        MPI_Finalize();
        return status;
    }
    /* Same policy on every rank: with a journal, stop cleanly so rank 0 can
     * save what finished; without one, the first signal ends the process. */
    nq_cli_install_signal_handlers(plan[NQ_MPI_PLAN_JOURNAL] != 0);

    /* Each rank names itself if its job differs; the lowest such rank wins. */
    int mine = rank == 0 || plan_like_rank0(plan, &opt, &job) ? ranks : rank;
    int first_bad = ranks;
    MPI_Allreduce(&mine, &first_bad, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (first_bad < ranks) {
        if (rank == 0)
            fprintf(stderr,
                    PROG ": rank %d planned a different job than rank 0 (mismatched "
                    "nqueens-mpi builds?)\n", first_bad);
        nq_journal_close(&journal);
        nq_job_free(&job);
        free(typed);
        MPI_Finalize();
        return 1;
    }

    if (rank == 0) {
        nq_mpi_coord_config cfg = {
            .job = job,
            .ranks = ranks,
            .threads = threads,
            .cancel = &nq_cli_cancel,
            .progress = opt.settings.progress,
            .progress_user = opt.settings.progress_user,
            .progress_interval = opt.settings.progress_interval,
            .journal = journal,
            .checkpoint_interval = opt.settings.checkpoint_interval,
        };
        nq_mpi_outcome out;
        int ret = nq_mpi_coordinate(&cfg, &out);
        status = report(ret, &out, &opt, job, ranks, total_threads, MPI_Wtime() - start, argc,
                        typed);
        if (out.abandoned) {
            /* A rank is stuck or gone: end the job instead of waiting in
             * MPI_Finalize for it (the journal is already flushed). */
            fprintf(stderr, PROG ": a rank did not stop within %.0f s; aborting the job\n",
                    NQ_MPI_STOP_GRACE);
            fflush(stdout);
            fflush(stderr);
            MPI_Abort(MPI_COMM_WORLD, status ? status : 1);
        }
        nq_journal_close(&journal);
    } else {
        int ret = nq_mpi_work(job, threads, &nq_cli_cancel);
        int sig = nq_cli_first_signal;
        status = ret == 0 ? 0 : ret == NQ_ECANCELLED ? 128 + (sig > 0 ? sig : 15) : 1;
    }
    /* Meet the other ranks without spinning, then finalize. */
    MPI_Request closing;
    MPI_Ibarrier(MPI_COMM_WORLD, &closing);
    nq_mpi_wait_napping(&closing);
    nq_job_free(&job);
    free(typed);
    MPI_Finalize();
    return status;
}
