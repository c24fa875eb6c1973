/*
 * nqueens_mpi.c - the hybrid MPI + OpenMP counter.
 *
 * Same options and output as `nqueens` (cli/options.c, cli/render.c,
 * cli/console.c), but the job's chunks are shared among MPI ranks, each
 * running its own OpenMP threads.  Rank 0 plans the run exactly as
 * nq_count() does (api/plan.c: for the threads of all ranks together, or
 * as the checkpoint journal dictates) and opens the journal; it first
 * broadcasts the engine and split depth it is about to plan with, so that
 * every rank plans the job at the same time, and then the plan it made,
 * which every rank proves it shares by the job's identity before any work
 * starts.  Rank 0 then runs the run layer (run/run.c: ledger, journal
 * cadence, progress) like nq_count(), with the ranks' threads in place of
 * the task pool.  Only rank 0 prints and only rank 0 touches the journal.
 * Every rank leaves with the same decision, so mpiexec's exit status is
 * the run's: 0, 2 for bad input (a journal that cannot be used, is in use,
 * or is another run's), 1 for a failure on any rank (a journal write
 * failing mid-run, a rank's part failing, out of memory, a result rank 0
 * cannot write, --output included: the status nqueens gives for the same
 * failures, with the same remedy, running it again), 4 for counts that
 * --verify found to differ, 128 + signal when rank 0 was interrupted.  A
 * rank that dies ends the job through the launcher, whose status is its
 * own.  A rank that stalls is left behind (its chunks go to the others);
 * since it cannot reach MPI_Finalize, rank 0 then ends the job with
 * MPI_Abort once the result is out: exit status 3 when the count is
 * complete (the total printed is exact).  Another rank that gets a signal
 * leaves the same way, at once and cleanly: the job completes and exits 3
 * too.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mpi.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "api/duration.h"
#include "api/plan.h"
#include "cli/console.h"
#include "cli/cpus.h"
#include "cli/memory.h"
#include "cli/options.h"
#include "cli/render.h"
#include "cli/output.h"
#include "cli/std_fds.h"
#include "cli/version.h"
#include "mpi/closing.h"
#include "mpi/coordinator.h"
#include "mpi/nap.h"
#include "mpi/protocol.h"
#include "mpi/trace.h"
#include "mpi/transport.h"
#include "mpi/worker.h"

#define PROG "nqueens-mpi"

/* Plan status meaning "go ahead and count"; any other value is the exit
 * status every rank returns at once. */
#define PLAN_RUN (-1)

/* What every rank knows once the command line is read. */
typedef struct program {
    int rank, ranks;
    int threads, total_threads; /* this rank's compute threads; all ranks' */
    double start;               /* MPI_Wtime() at start-up */
    nq_cli_options opt;
    int argc;
    char **typed;               /* argv as typed, for the resume hint */
} program;

/* The first rank whose threads outnumber the CPUs it may use (cli/cpus.h),
 * as rank 0 learns it: how many ranks are so, and that rank's figures. */
typedef struct crowding {
    int ranks; /* 0: none */
    int rank, threads;
    nq_cli_cpus cpus;
} crowding;

/* Every rank: sums the threads of all ranks into pg->total_threads and
 * finds the first crowded rank (one allreduce when there is none). */
static crowding crowding_of(program *pg)
{
    const nq_cli_cpus cpus = nq_cli_cpus_now();
    const int mine[2] = {pg->threads, nq_cli_crowded(pg->threads, cpus)};
    int all[2];
    nq_mpi_allreduce_napping(mine, all, 2, MPI_INT, MPI_SUM);
    pg->total_threads = all[0];
    crowding c = {.ranks = all[1]};
    if (c.ranks == 0)
        return c;
    const int candidate = mine[1] ? pg->rank : pg->ranks;
    nq_mpi_allreduce_napping(&candidate, &c.rank, 1, MPI_INT, MPI_MIN);
    int figures[3] = {pg->threads, cpus.usable, cpus.online};
    nq_mpi_bcast_napping(figures, 3, MPI_INT, c.rank);
    c.threads = figures[0];
    c.cpus = (nq_cli_cpus){.usable = figures[1], .online = figures[2]};
    return c;
}

/* Rank 0, before a count: the warning of cli/cpus.h for the first crowded
 * rank, with what gives a rank its CPUs under mpiexec and srun. */
static void warn_if_crowded(const crowding *c)
{
    if (c->ranks == 0)
        return;
    char who[96], remedy[160];
    if (c->ranks > 1)
        snprintf(who, sizeof who, "rank %d (and %d more rank%s alike)", c->rank, c->ranks - 1,
                 c->ranks > 2 ? "s" : "");
    else
        snprintf(who, sizeof who, "rank %d", c->rank);
    snprintf(remedy, sizeof remedy,
             "give each rank a CPU per thread (mpiexec --bind-to none or --map-by "
             "slot:PE=%d, srun --cpus-per-task=%d) or use -t %d",
             c->threads, c->threads, c->cpus.usable);
    nq_cli_warn_crowded(stderr, PROG, who, c->threads, c->cpus, remedy);
}

/* Rank 0: acts on anything but a count (help, version, bad input, a
 * listing).  Returns PLAN_RUN when there is a count to plan, else the exit
 * status. */
static int act_on_rank0(int action, const char *err, program *pg)
{
    switch (action) {
    case NQ_CLI_HELP:
        nq_cli_usage(stdout, PROG);
        nq_cli_usage_mpi(stdout);
        nq_cli_stdout_ok();
        return 0;
    case NQ_CLI_VERSION: nq_cli_print_version(stdout, PROG); nq_cli_stdout_ok(); return 0;
    case NQ_CLI_BAD: nq_cli_report_bad(PROG, err); return NQ_CLI_EXIT_USAGE;
    default: break;
    }
    if (pg->opt.list) /* listing is quick and sequential: rank 0 alone does it */
        return nq_cli_list(&pg->opt, PROG);
    /* Under mpiexec the result may be safe only in this file: a count whose
     * result cannot be saved does not start. */
    if (pg->opt.output && nq_cli_output_check(PROG, pg->opt.output) != 0)
        return 1;
    /* Rank 0 checks the memory of its own node for its own threads (the
     * other ranks' nodes are taken to be alike). */
    const int memory = nq_cli_memory_check(PROG, &pg->opt.settings, pg->threads);
    if (memory != 0)
        return memory;
    return PLAN_RUN;
}

/* Rank 0: plans the run for the threads of all ranks and opens its
 * journal, and fills the plan message.  Returns PLAN_RUN or an exit status
 * (after saying why). */
static int plan_on_rank0(program *pg, nq_plan *plan, int64_t *msg)
{
    char detail[NQ_JOURNAL_DETAIL_MAX] = "";
    int ret = nq_plan_open(plan, &pg->opt.settings, pg->total_threads, pg->ranks, detail,
                           sizeof detail);
    if (ret < 0) {
        return nq_cli_report_failure(PROG, ret, detail);
    }
    msg[NQ_MPI_PLAN_N] = pg->opt.settings.n;
    msg[NQ_MPI_PLAN_ENGINE] = nq_job_engine(plan->job);
    msg[NQ_MPI_PLAN_SPLIT] = nq_job_split_depth(plan->job);
    msg[NQ_MPI_PLAN_UNITS] = (int64_t)nq_job_units(plan->job);
    msg[NQ_MPI_PLAN_IDENTITY] = (int64_t)nq_job_identity(plan->job);
    msg[NQ_MPI_PLAN_CHUNK_UNITS] = (int64_t)plan->chunk_units;
    msg[NQ_MPI_PLAN_JOURNAL] = plan->journal != NULL;
    msg[NQ_MPI_PLAN_RANK_TIMEOUT] =
        pg->opt.rank_timeout > 0 ? pg->opt.rank_timeout : NQ_CLI_RANK_TIMEOUT_DEFAULT;
    return PLAN_RUN;
}

/* Rank 0, before it plans: the engine and split depth (NQ_SPLIT_AUTO: the
 * engine's choice for all ranks' threads) it is about to plan, so that the
 * other ranks plan the job at the same time instead of after it; an
 * engine of -1 when the settings will be refused anyway. */
static void resolve_on_rank0(const program *pg, int64_t *msg)
{
    enum nq_engine engine = NQ_ENGINE_AUTO;
    int split = NQ_SPLIT_AUTO;
    msg[NQ_MPI_PLAN_N] = pg->opt.settings.n;
    msg[NQ_MPI_PLAN_ENGINE] = -1;
    if (nq_check_settings(&pg->opt.settings, NULL, 0) < 0)
        return;
    nq_plan_resolve(&pg->opt.settings, &engine, &split);
    msg[NQ_MPI_PLAN_ENGINE] = engine;
    msg[NQ_MPI_PLAN_SPLIT] = split;
}

/* Other ranks, while rank 0 plans: the job rank 0 said it would plan, for
 * all ranks' threads as rank 0 plans it (an automatic split depth comes
 * out the same), its OpenMP regions on this rank's own threads.  A failure
 * leaves no job, and same_job_everywhere() plans again. */
static void plan_beside_rank0(const program *pg, const int64_t *msg, nq_plan *plan)
{
    if (msg[NQ_MPI_PLAN_ENGINE] < 0)
        return;
    if (nq_plan_job(&plan->job, (int)msg[NQ_MPI_PLAN_N], (enum nq_engine)msg[NQ_MPI_PLAN_ENGINE],
                    pg->total_threads, (int)msg[NQ_MPI_PLAN_SPLIT], pg->opt.settings.memory) < 0)
        plan->job = NULL;
}

/* 1 when *plan is rank 0's job (same identity and unit count). */
static int is_rank0_job(const int64_t *msg, const nq_plan *plan)
{
    return plan->job && nq_job_identity(plan->job) == (uint64_t)msg[NQ_MPI_PLAN_IDENTITY] &&
           nq_job_units(plan->job) == (uint64_t)msg[NQ_MPI_PLAN_UNITS];
}

/* Other ranks: keeps the job planned beside rank 0 when it is rank 0's,
 * else plans the job rank 0 resolved, at the split depth it chose.
 * Returns 1 when *plan is the very same job, 0 otherwise. */
static int plan_like_rank0(const int64_t *msg, int threads, uint64_t memory, nq_plan *plan)
{
    plan->chunk_units = (uint64_t)msg[NQ_MPI_PLAN_CHUNK_UNITS];
    if (is_rank0_job(msg, plan))
        return 1;
    nq_job_free(&plan->job);
    nq_mpi_trace("planning again, as rank 0 did");
    if (nq_plan_job(&plan->job, (int)msg[NQ_MPI_PLAN_N], (enum nq_engine)msg[NQ_MPI_PLAN_ENGINE],
                    threads, (int)msg[NQ_MPI_PLAN_SPLIT], memory) < 0)
        return 0;
    return is_rank0_job(msg, plan);
}

/* Every rank: checks that all ranks planned rank 0's job.  Returns 1, or
 * 0 after rank 0 named the first rank that did not. */
static int same_job_everywhere(const program *pg, const int64_t *msg, nq_plan *plan)
{
    const int same =
        pg->rank == 0 || plan_like_rank0(msg, pg->threads, pg->opt.settings.memory, plan);
    int mine = same ? pg->ranks : pg->rank;
    int first_bad = pg->ranks;
    nq_mpi_allreduce_napping(&mine, &first_bad, 1, MPI_INT, MPI_MIN);
    if (first_bad < pg->ranks && pg->rank == 0)
        fprintf(stderr, PROG ": rank %d planned a different job than rank 0 (mismatched "
                "nqueens-mpi builds?)\n", first_bad);
    return first_bad == pg->ranks;
}

/* Rank 0: turns the outcome into output and an exit status. */
static int report(int ret, const char *message, const program *pg, const nq_plan *plan,
                  const nq_result *r)
{
    if (ret == NQ_ECANCELLED) {
        int sig = nq_cli_first_signal;
        if (plan->journal)
            nq_cli_print_resume_hint(PROG, r->subproblems,
                                     "resume by running it again, with any number of ranks",
                                     pg->argc, pg->typed);
        else
            fprintf(stderr, PROG ": interrupted after %" PRIu64 " subproblems were done\n",
                    r->subproblems);
        return 128 + (sig > 0 ? sig : 15);
    }
    if (ret < 0) {
        fprintf(stderr, PROG ": %s\n", message[0] ? message : nq_strerror(ret));
        return ret == NQ_EVERIFY ? NQ_CLI_EXIT_VERIFY : 1;
    }
    if (pg->opt.output)
        return nq_cli_output_write(PROG, pg->opt.output, &pg->opt, r, pg->ranks);
    nq_cli_print_result(&pg->opt, r, pg->ranks);
    return 0;
}

/* Rank 0's console while the run lasts: the monitor thread draws progress
 * while the main thread may report a rank that stalled or came back; one
 * lock keeps their lines whole. */
typedef struct console {
    pthread_mutex_t lock;
    const nq_settings *settings; /* its progress and notice callbacks draw */
} console;

static void console_progress(const nq_progress *p, void *user)
{
    console *c = user;
    pthread_mutex_lock(&c->lock);
    c->settings->progress(p, c->settings->progress_user);
    pthread_mutex_unlock(&c->lock);
}

static void console_notice(const char *message, void *user)
{
    console *c = user;
    pthread_mutex_lock(&c->lock);
    c->settings->notice(message, c->settings->notice_user);
    pthread_mutex_unlock(&c->lock);
}

/* Rank 0, result or resume hint already out: rank `out->silent_rank`
 * stayed silent to the end and will never reach MPI_Finalize, so the job
 * can only end by MPI_Abort, with `status` (3 for a complete count). */
static void end_without_silent_rank(const nq_mpi_outcome *out, int status)
{
    const int code = status == 0 ? NQ_MPI_EXIT_COMPLETE_WITHOUT_A_RANK : status;
    fprintf(stderr,
            PROG ": %srank %d has been silent for %.0f s and cannot take part in the "
            "job's end: aborting the job with exit status %d\n",
            status == 0 ? "the count is complete and exact, but " : "", out->silent_rank,
            out->silent_for, code);
    fflush(stdout);
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, code);
}

/* What rank 0's duration estimate needs, on its team's thread. */
typedef struct estimate_job {
    const nq_plan *plan;
    nq_run *run;
    int threads;
} estimate_job;

/* Rank 0's duration estimate (the coordinator's prepare hook): its sample
 * is solved on rank 0's threads before they take their first chunk of the
 * count, while the main thread already hands chunks to the other ranks;
 * the sample claims its chunks from the same ledger, so no chunk is solved
 * twice.  The figure spreads the chunks not finished when it is made (the
 * other ranks' work meanwhile is left out of it) over every rank's
 * threads, and adds the time since the run began. */
static void estimate_on_rank0(void *user)
{
    const estimate_job *e = user;
    nq_plan_estimate(e->plan, e->run, e->threads);
    nq_mpi_trace("estimate done");
}

/* Rank 0: runs the planned job with the other ranks and reports it. */
static int count_on_rank0(const program *pg, nq_plan *plan, double rank_timeout)
{
    const nq_settings *s = &pg->opt.settings;
    console con = {.settings = s};
    pthread_mutex_init(&con.lock, NULL);
    nq_settings drawn = *s;
    drawn.cancel = &nq_cli_cancel;
    drawn.progress = s->progress ? console_progress : NULL;
    drawn.progress_user = &con;
    const nq_run_config rc =
        nq_plan_run_config(plan, &drawn, nq_now() - (MPI_Wtime() - pg->start));
    nq_run run;
    nq_mpi_outcome out = {.message = ""};
    int ret = nq_run_start(&run, &rc);
    if (ret < 0) {
        /* Nothing can be counted; the others are told by a failed run. */
        fprintf(stderr, PROG ": rank 0: %s\n", nq_strerror(ret));
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    nq_mpi_trace("run started");
    estimate_job est = {.plan = plan, .run = &run, .threads = pg->threads};
    const nq_mpi_coord_config cfg = {
        .job = plan->job,
        .run = &run,
        .ranks = pg->ranks,
        .threads = pg->threads,
        .rank_timeout = rank_timeout,
        .verify = s->verify,
        .notice = console_notice,
        .notice_user = &con,
        .prepare = estimate_on_rank0,
        .prepare_user = &est,
    };
    ret = nq_mpi_coordinate(&cfg, &out);
    nq_mpi_trace("coordination done");
    if (out.abandoned) {
        /* A rank is stuck or gone: end the job instead of waiting in
         * MPI_Finalize for it, with the journal made durable first. */
        nq_run_abandon(&run);
        fprintf(stderr, PROG ": a rank did not stop within %.0f s; aborting the job\n",
                NQ_MPI_STOP_GRACE);
        fflush(stdout);
        fflush(stderr);
        MPI_Abort(MPI_COMM_WORLD, ret == NQ_ECANCELLED ? 128 + 15 : 1);
    }
    nq_counts sum;
    uint64_t done, resumed;
    nq_run_outcome(&run, &sum, &done, &resumed);
    ret = nq_run_finish(&run, ret, out.message[0] ? NULL : out.message, sizeof out.message);
    nq_result r;
    memset(&r, 0, sizeof r);
    nq_plan_result(plan, &sum, done, resumed, pg->total_threads, MPI_Wtime() - pg->start, &r);
    int status = report(ret, out.message, pg, plan, &r);
    nq_mpi_trace("result out");
    if (status == 0 && out.left_rank) {
        status = NQ_MPI_EXIT_COMPLETE_WITHOUT_A_RANK;
        fprintf(stderr,
                PROG ": the count is complete and exact, but rank %d left the job on %s "
                "(the other ranks counted its chunks): exit status %d\n",
                out.left_rank, nq_mpi_signal_name(out.left_signal), status);
    }
    if (out.silent_rank)
        end_without_silent_rank(&out, status);
    pthread_mutex_destroy(&con.lock);
    return status;
}

/* A non-zero rank's exit status after its part of the run; -1 when it
 * stopped (rank 0 told it to, or it left on its own signal and the others
 * went on without it), which then takes rank 0's status: the job's. */
static int worker_status(int ret)
{
    return ret == 0 ? 0 : ret == NQ_ECANCELLED ? -1 : 1;
}

int main(int argc, char **argv)
{
    nq_cli_guard_std_fds(); /* before MPI opens anything */
    /* A rank other than 0 that gets a signal leaves the count cleanly (its
     * chunks go to the others, coordinator.h), journal or not, and from the
     * very start: a scheduler draining one node must not end the whole
     * job.  Rank 0's signal ends the job: at once until it knows of a
     * journal (a signal during MPI_Init stops its count as it starts). */
    nq_cli_install_signal_handlers(1);
    nq_mpi_trace_init(-1);
    nq_mpi_trace("process started (pid %ld)", (long)getpid());
    const int shared_memory = nq_mpi_choose_transport();
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    program pg = {.argc = argc, .start = MPI_Wtime()};
    MPI_Comm_rank(MPI_COMM_WORLD, &pg.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &pg.ranks);
    nq_mpi_trace_init(pg.rank);
    const int quickened = nq_mpi_quicken_launcher_channel();
    nq_mpi_trace("MPI_Init done (pid %ld%s%s)", (long)getpid(),
                 shared_memory ? ", one node: pml ob1" : "",
                 quickened ? ", launcher channel without delay" : "");
    if (pg.rank == 0)
        nq_cli_install_signal_handlers(0);

    /* getopt_long permutes argv; the resume hint repeats it as typed. */
    pg.typed = malloc(((size_t)argc + 1) * sizeof *pg.typed);
    if (!pg.typed) {
        fputs(PROG ": out of memory\n", stderr);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    memcpy(pg.typed, argv, ((size_t)argc + 1) * sizeof *pg.typed);

    /* Every rank parses (threads are per rank); rank 0's reading decides. */
    char err[256] = "";
    int action = nq_cli_parse_mpi(argc, argv, &pg.opt, err, sizeof err);
    pg.threads = nq_resolve_threads(action == NQ_CLI_RUN ? pg.opt.settings.threads : 0);
    if (pg.threads < 1 || pg.threads > NQ_MAX_THREADS)
        pg.threads = 1; /* a bad OMP_NUM_THREADS: the parse refused it, rank 0 says so */
    crowding crowd = crowding_of(&pg);
    if (pg.total_threads > NQ_MAX_THREADS)
        pg.total_threads = NQ_MAX_THREADS;
#ifdef _OPENMP
    /* Whatever runs on OpenMP here (planning, the estimate's sample) runs
     * on this rank's threads, not on every core of a node it may share. */
    omp_set_num_threads(pg.threads);
#endif
    nq_mpi_trace("options read");

    /* Two broadcasts: what rank 0 will plan, so that every rank plans it at
     * once (mitm's quarter store, say, is built on every rank), then the
     * plan rank 0 made, which the others prove they share. */
    int64_t msg[NQ_MPI_PLAN_FIELDS_] = {PLAN_RUN};
    nq_plan plan;
    memset(&plan, 0, sizeof plan);
    nq_cli_progress_view view; /* rank 0 draws progress; it lives as long as the run */
    if (pg.rank == 0) {
        nq_cli_progress_setup(&pg.opt, &view, PROG);
        msg[NQ_MPI_PLAN_STATUS] = act_on_rank0(action, err, &pg);
        if (msg[NQ_MPI_PLAN_STATUS] == PLAN_RUN && provided < MPI_THREAD_FUNNELED) {
            fprintf(stderr, PROG ": the MPI library lacks MPI_THREAD_FUNNELED support\n");
            msg[NQ_MPI_PLAN_STATUS] = 1;
        }
        if (msg[NQ_MPI_PLAN_STATUS] == PLAN_RUN) {
            warn_if_crowded(&crowd);
            resolve_on_rank0(&pg, msg);
        }
    }
    nq_mpi_bcast_napping(msg, NQ_MPI_PLAN_FIELDS_, MPI_INT64_T, 0);
    if (msg[NQ_MPI_PLAN_STATUS] == PLAN_RUN) {
        if (pg.rank == 0)
            msg[NQ_MPI_PLAN_STATUS] = plan_on_rank0(&pg, &plan, msg);
        else
            plan_beside_rank0(&pg, msg, &plan);
        nq_mpi_trace("planned");
        nq_mpi_bcast_napping(msg, NQ_MPI_PLAN_FIELDS_, MPI_INT64_T, 0);
        nq_mpi_trace("plan broadcast");
    }
    int status = (int)msg[NQ_MPI_PLAN_STATUS];
    if (status == PLAN_RUN) {
        /* Rank 0's signal ends the job: with a journal, cleanly so it can
         * save what finished; without one, the first signal ends the
         * process. */
        if (pg.rank == 0)
            nq_cli_install_signal_handlers(msg[NQ_MPI_PLAN_JOURNAL] != 0);
        const int same = same_job_everywhere(&pg, msg, &plan);
        nq_mpi_trace("same job on every rank");
        if (same) /* a rank's threads share chunks as its --schedule says */
            plan.job->schedule = pg.opt.settings.schedule;
        if (!same)
            status = 1;
        else if (pg.rank == 0)
            status = count_on_rank0(&pg, &plan, (double)msg[NQ_MPI_PLAN_RANK_TIMEOUT]);
        else
            status = worker_status(nq_mpi_work(plan.job, plan.chunk_units, pg.threads,
                                               (double)msg[NQ_MPI_PLAN_RANK_TIMEOUT],
                                               &nq_cli_cancel, &nq_cli_first_signal));
    }
    if (pg.rank != 0)
        nq_mpi_trace("work done");
    nq_plan_close(&plan);
    free(pg.typed);
    /* The result is out before the end of the job, which a stalled rank
     * may cut short; a rank that rank 0 stopped (its journal failed, say)
     * leaves with rank 0's status. */
    status = nq_cli_close_stdout(PROG, status);
    const int ran = msg[NQ_MPI_PLAN_STATUS] == PLAN_RUN;
    return nq_mpi_close_job(ran, ran ? (double)msg[NQ_MPI_PLAN_RANK_TIMEOUT] : 0, status);
}
