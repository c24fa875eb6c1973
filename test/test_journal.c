/*
 * test_journal.c - the checkpoint journal and what nq_count() builds on it:
 * resume, torn tails cut at every byte, damage and mismatch refused with the
 * file untouched, completed journals, progress reports and cancellation.
 *
 * Each test works in its own fresh temporary directory.  Boards are small
 * (N <= 12) so that the byte-by-byte truncation sweep stays fast.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "api/plan.h"
#include "journal/crc.h"
#include "journal/journal.h"
#include "reference/known.h"

#define BLOCK 64

static char dir[64];
static char path[128];
static int notices;

static void on_notice(const char *message, void *user)
{
    (void)user;
    assert_non_null(strstr(message, "torn"));
    notices++;
}

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/nq_test_journal_XXXXXX");
    if (!mkdtemp(dir))
        return -1;
    snprintf(path, sizeof path, "%s/run.journal", dir);
    notices = 0;
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    unlink(path);
    rmdir(dir);
    return 0;
}

static nq_settings settings_for(int n, int split)
{
    nq_settings s;
    nq_default_settings(&s);
    s.n = n;
    s.engine = NQ_ENGINE_MIRROR;
    s.threads = 2;
    s.split_depth = split;
    s.checkpoint_path = path;
    s.notice = on_notice;
    return s;
}

/* Whole file into a malloc'd buffer; *len gets its size. */
static unsigned char *slurp(const char *p, size_t *len)
{
    FILE *f = fopen(p, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *buf = malloc((size_t)size + 1);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)size, f), (size_t)size);
    fclose(f);
    *len = (size_t)size;
    return buf;
}

static void spit(const char *p, const unsigned char *buf, size_t len)
{
    FILE *f = fopen(p, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(buf, 1, len, f), len);
    fclose(f);
}

/* nq_count must refuse the journal with `code` and leave it unchanged. */
static void assert_refused(nq_settings *s, int code, const char *mention)
{
    size_t before_len, after_len;
    unsigned char *before = slurp(path, &before_len);
    nq_result r;
    int ret = nq_count(s, &r);
    if (ret != code)
        fail_msg("nq_count = %d (%s), want %d; detail: %s", ret, nq_strerror(ret), code, r.detail);
    assert_non_null(strstr(r.detail, path));
    if (mention && !strstr(r.detail, mention))
        fail_msg("detail '%s' should mention '%s'", r.detail, mention);
    unsigned char *after = slurp(path, &after_len);
    assert_int_equal(before_len, after_len);
    assert_memory_equal(before, after, before_len);
    free(before);
    free(after);
}

static nq_result count_ok(nq_settings *s)
{
    nq_result r;
    int ret = nq_count(s, &r);
    if (ret != 0)
        fail_msg("nq_count = %d (%s): %s", ret, nq_strerror(ret), r.detail);
    return r;
}

/* A fresh run writes header + one record per chunk + DONE, and a rerun
 * returns the stored result without solving anything. */
static void test_complete_and_rerun(void **state)
{
    (void)state;
    nq_settings s = settings_for(11, 3);
    nq_result r = count_ok(&s);
    assert_true(r.total == known_total[11]);
    assert_int_equal(r.units_resumed, 0);

    nq_job *job = NULL;
    assert_int_equal(nq_job_create(&job, &s), 0);
    nq_journal *j = NULL;
    assert_int_equal(nq_journal_open(&j, path, job, nq_plan_durable_chunk_units(job), NULL, NULL,
                                     NULL, 0), 0);
    assert_true(nq_journal_is_complete(j));
    assert_int_equal(nq_journal_resumed_units(j), nq_job_units(job));
    assert_true(nq_journal_resumed_counts(j).total == known_total[11]);
    size_t len;
    free(slurp(path, &len));
    assert_int_equal(len, BLOCK * (1 + nq_journal_chunks(j) + 1));
    nq_journal_close(&j);
    nq_job_free(&job);

    /* Another thread count resumes the same journal. */
    s.threads = 1;
    nq_result again = count_ok(&s);
    assert_true(again.total == known_total[11]);
    assert_int_equal(again.units_resumed, again.subproblems);
    assert_int_equal(notices, 0);
}

/* The journal API on its own: records land, reopen loads them. */
static void test_record_and_reload(void **state)
{
    (void)state;
    nq_settings s = settings_for(10, 3);
    nq_job *job = NULL;
    assert_int_equal(nq_job_create(&job, &s), 0);
    const uint64_t chunk_units = 2;
    nq_journal *j = NULL;
    assert_int_equal(nq_journal_open(&j, path, job, chunk_units, NULL, NULL, NULL, 0), 0);
    uint64_t chunks = nq_journal_chunks(j);
    assert_true(chunks >= 3);
    assert_int_equal(nq_journal_resumed_units(j), 0);
    nq_counts a = {5, 7}, b = {11, 13};
    assert_int_equal(nq_journal_record(j, 0, &a), 0);
    assert_int_equal(nq_journal_record(j, 2, &b), 0);
    assert_int_equal(nq_journal_record(j, 2, &b), 0); /* twice: written once */
    assert_int_equal(nq_journal_record(j, chunks, &b), NQ_EINVAL_ARG);
    assert_int_equal(nq_journal_flush(j, 1), 0);
    nq_journal_close(&j);

    char detail[NQ_JOURNAL_DETAIL_MAX];
    assert_int_equal(nq_journal_open(&j, path, job, chunk_units + 1, NULL, NULL, detail,
                                     sizeof detail), NQ_EJOURNAL_MISMATCH);
    assert_non_null(strstr(detail, "units per chunk"));
    assert_int_equal(nq_journal_open(&j, path, job, chunk_units, NULL, NULL, NULL, 0), 0);
    const unsigned char *done = nq_journal_done(j);
    assert_int_equal(done[0], 1);
    assert_int_equal(done[1], 0);
    assert_int_equal(done[2], 1);
    nq_counts sum = nq_journal_resumed_counts(j);
    assert_true(sum.total == 16 && sum.unique == 20);
    assert_int_equal(nq_journal_resumed_units(j), 2 * chunk_units);
    assert_false(nq_journal_is_complete(j));
    nq_journal_close(&j);
    nq_job_free(&job);
}

/* Builds a journal of a finished run without its DONE record, so that its
 * last record is a chunk; returns its length. */
static size_t journal_without_done(nq_settings *s, unsigned char **bytes)
{
    count_ok(s);
    size_t len;
    unsigned char *buf = slurp(path, &len);
    len -= BLOCK;
    *bytes = buf;
    return len;
}

/* Cutting the file anywhere inside its last record (a crash mid-write)
 * loses that record only: the resume is exact and says so once. */
static void test_torn_tail_every_offset(void **state)
{
    (void)state;
    nq_settings s = settings_for(12, 3);
    unsigned char *full;
    size_t len = journal_without_done(&s, &full);
    for (size_t cut = len - BLOCK; cut < len; cut++) {
        spit(path, full, cut);
        notices = 0;
        nq_result r = count_ok(&s);
        if (r.total != known_total[12])
            fail_msg("cut at %zu: wrong total", cut);
        assert_int_equal(notices, cut > len - BLOCK ? 1 : 0);
        assert_true(r.units_resumed < r.subproblems);
        /* The torn bytes were truncated before appending: the journal is
         * whole again and now complete. */
        size_t now_len;
        free(slurp(path, &now_len));
        assert_int_equal(now_len % BLOCK, 0);
        notices = 0;
        r = count_ok(&s);
        assert_int_equal(r.units_resumed, r.subproblems);
        assert_int_equal(notices, 0);
    }
    free(full);
}

/* A last record whose bytes are garbage (written but never completed), or
 * a zero-filled tail, is torn too. */
static void test_torn_garbage_and_zeros(void **state)
{
    (void)state;
    nq_settings s = settings_for(12, 3);
    unsigned char *full;
    size_t len = journal_without_done(&s, &full);
    full[len - 10] ^= 0x40;
    spit(path, full, len);
    notices = 0;
    nq_result r = count_ok(&s);
    assert_true(r.total == known_total[12]);
    assert_int_equal(notices, 1);

    /* Three records' worth of zeros after the good ones. */
    full[len - 10] ^= 0x40;
    memset(full + len - 3 * BLOCK, 0, 3 * BLOCK);
    spit(path, full, len);
    notices = 0;
    r = count_ok(&s);
    assert_true(r.total == known_total[12]);
    assert_int_equal(notices, 1);
    free(full);
}

/* A damaged record with good ones after it is not a crash: refused. */
static void test_middle_damage_refused(void **state)
{
    (void)state;
    nq_settings s = settings_for(12, 3);
    unsigned char *full;
    size_t len = journal_without_done(&s, &full);
    size_t records = (len - BLOCK) / BLOCK;
    const size_t offsets[] = {0, 1, 8, 17, 40, 59, 60, 63};
    for (size_t i = 0; i < sizeof offsets / sizeof *offsets; i++) {
        unsigned char *copy = malloc(len);
        memcpy(copy, full, len);
        copy[BLOCK + (records / 2) * BLOCK + offsets[i]] ^= 0x01;
        spit(path, copy, len);
        char says[64];
        snprintf(says, sizeof says, "and %zu valid records follow it", records - records / 2 - 1);
        assert_refused(&s, NQ_EJOURNAL_CORRUPT, says);
        free(copy);
    }
    /* Garbage after a bad record is damage too, but no valid record
     * follows it, and the message must not claim one does. */
    unsigned char *garbage = malloc(len);
    memcpy(garbage, full, len);
    for (size_t b = BLOCK + (records - 3) * BLOCK; b < len; b++)
        garbage[b] = (unsigned char)(b * 7 + 1);
    spit(path, garbage, len);
    assert_refused(&s, NQ_EJOURNAL_CORRUPT, "the 128 bytes after it hold no valid record");
    free(garbage);
    /* The header itself. */
    unsigned char *copy = malloc(len);
    memcpy(copy, full, len);
    copy[20] ^= 0x01;
    spit(path, copy, len);
    assert_refused(&s, NQ_EJOURNAL_CORRUPT, "header");
    free(copy);
    free(full);
}

/* A journal of another run is refused, naming the difference. */
static void test_mismatch_refused(void **state)
{
    (void)state;
    nq_settings s = settings_for(11, 3);
    count_ok(&s);

    nq_settings other = s;
    other.n = 12;
    assert_refused(&other, NQ_EJOURNAL_MISMATCH, "N=11");
    other = s;
    other.split_depth = 2;
    assert_refused(&other, NQ_EJOURNAL_MISMATCH, "split depth");
    other = s;
    other.engine = NQ_ENGINE_PLAIN;
    other.split_depth = 0;
    other.threads = 1;
    assert_refused(&other, NQ_EJOURNAL_MISMATCH, "engine");

    /* An older and a newer format version, each with a valid header
     * checksum: version 1 records carried a node count, so they are refused
     * rather than read with today's layout. */
    size_t len;
    unsigned char *buf = slurp(path, &len);
    const unsigned char version = buf[8];
    const unsigned char other_versions[2] = {(unsigned char)(version - 1),
                                             (unsigned char)(version + 1)};
    const char *says[2] = {"older", "newer"};
    for (int v = 0; v < 2; v++) {
        buf[8] = other_versions[v];
        uint32_t crc = nq_crc32(0, buf, 60);
        for (int i = 0; i < 4; i++)
            buf[60 + i] = (unsigned char)(crc >> (8 * i));
        spit(path, buf, len);
        assert_refused(&s, NQ_EJOURNAL_MISMATCH, says[v]);
    }
    free(buf);
}

/* Files that are no journal at all. */
static void test_not_a_journal(void **state)
{
    (void)state;
    nq_settings s = settings_for(10, 2);
    spit(path, (const unsigned char *)"", 0);
    assert_refused(&s, NQ_EJOURNAL_CORRUPT, "empty");
    unsigned char noise[777];
    srand(7);
    for (size_t i = 0; i < sizeof noise; i++)
        noise[i] = (unsigned char)rand();
    spit(path, noise, sizeof noise);
    assert_refused(&s, NQ_EJOURNAL_CORRUPT, "not a checkpoint journal");
    spit(path, (const unsigned char *)"NQJOURNL", 8);
    assert_refused(&s, NQ_EJOURNAL_CORRUPT, "not a checkpoint journal");
}

/* A completion record whose counts disagree with the chunks is refused. */
static void test_forged_done_refused(void **state)
{
    (void)state;
    nq_settings s = settings_for(10, 2);
    count_ok(&s);
    size_t len;
    unsigned char *buf = slurp(path, &len);
    unsigned char *done = buf + len - BLOCK;
    done[16] ^= 0x01; /* total's low byte */
    uint32_t crc = nq_crc32(0, done, 60);
    for (int i = 0; i < 4; i++)
        done[60 + i] = (unsigned char)(crc >> (8 * i));
    spit(path, buf, len);
    assert_refused(&s, NQ_EJOURNAL_CORRUPT, "completion");
    free(buf);
}

/* nq_count must refuse the path with `code` at once, naming it and what
 * is wrong with it. */
static void assert_path_refused(const char *p, int code, const char *mention)
{
    nq_settings s = settings_for(10, 2);
    s.checkpoint_path = p;
    nq_result r;
    int ret = nq_count(&s, &r);
    if (ret != code || !strstr(r.detail, mention))
        fail_msg("'%.60s': nq_count = %d (%s), want %d; detail '%s' should mention '%s'", p, ret,
                 nq_strerror(ret), code, r.detail, mention);
}

/* Paths that cannot hold a journal fail before any work starts, saying
 * what the path is; none of them blocks (a FIFO's open() would). */
static void test_unusable_paths(void **state)
{
    (void)state;
    char p[600];
    assert_path_refused("/nonexistent-nq-dir/run.journal", NQ_EJOURNAL_PATH,
                        "folder does not exist");
    /* A detail line stays one line whatever the path holds. */
    assert_path_refused("/nonexistent-nq-dir/a\nb\x1b", NQ_EJOURNAL_PATH,
                        "'/nonexistent-nq-dir/a?b?'");
    assert_path_refused(dir, NQ_EJOURNAL_PATH, "is a directory");
    assert_path_refused("/dev/null", NQ_EJOURNAL_PATH, "is a character device");
    if (access("/proc/version", R_OK) == 0)
        assert_path_refused("/proc/version", NQ_EJOURNAL_PATH, "a file of /proc");
    snprintf(p, sizeof p, "%s/fifo", dir);
    assert_int_equal(mkfifo(p, 0600), 0);
    assert_path_refused(p, NQ_EJOURNAL_PATH, "is a FIFO");
    unlink(p);
    snprintf(p, sizeof p, "%s/dangling", dir);
    assert_int_equal(symlink("no/such/target", p), 0);
    assert_path_refused(p, NQ_EJOURNAL_PATH, "symbolic link to 'no/such/target', which does not");
    unlink(p);

    /* The longest name the file system takes works (the temporary name
     * beside it is cut short to fit); one byte more says it is too long. */
    const int name_max = (int)pathconf(dir, _PC_NAME_MAX);
    snprintf(p, sizeof p, "%s/%0*d", dir, name_max, 0);
    nq_settings s = settings_for(10, 2);
    s.checkpoint_path = p;
    assert_true(count_ok(&s).total == known_total[10]);
    unlink(p);
    snprintf(p, sizeof p, "%s/%0*d", dir, name_max + 1, 0);
    assert_path_refused(p, NQ_EJOURNAL_PATH, "a name in the path is too long");
}

/* While one run holds the journal, another is refused at once, naming the
 * holder's process, and the journal is left byte-for-byte as it was. */
static void test_locked_journal_refused(void **state)
{
    (void)state;
    nq_settings s = settings_for(11, 3);
    count_ok(&s);
    nq_plan plan;
    assert_int_equal(nq_plan_open(&plan, &s, 2, 1, NULL, 0), 0);
    char pid[32];
    snprintf(pid, sizeof pid, "(process %ld)", (long)getpid());
    assert_refused(&s, NQ_EJOURNAL_BUSY, "is in use by another run");
    nq_result r;
    assert_int_equal(nq_count(&s, &r), NQ_EJOURNAL_BUSY);
    if (access("/proc/locks", R_OK) == 0 && !strstr(r.detail, pid))
        fail_msg("detail '%s' should name the holder %s", r.detail, pid);
    nq_plan_close(&plan);
    assert_true(count_ok(&s).total == known_total[11]);
}

/* A journal that cannot be written in the middle of a run (here: a file
 * size limit, as a full disk would) fails the run with NQ_EIO naming the
 * file, keeps what was recorded before, and a rerun resumes it exactly. */
static void test_write_failure_mid_run(void **state)
{
    (void)state;
    nq_settings s = settings_for(12, 3);
    struct rlimit old, small;
    assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
    small = old;
    small.rlim_cur = BLOCK + 5 * BLOCK + BLOCK / 2; /* header, five and a half records */
    void (*was)(int) = signal(SIGXFSZ, SIG_IGN);
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &small), 0);
    nq_result r;
    int ret = nq_count(&s, &r);
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
    signal(SIGXFSZ, was);
    if (ret != NQ_EIO || !strstr(r.detail, "cannot write to journal") || !strstr(r.detail, path))
        fail_msg("nq_count = %d (%s), want NQ_EIO; detail: %s", ret, nq_strerror(ret), r.detail);
    notices = 0;
    r = count_ok(&s);
    assert_true(r.total == known_total[12]);
    assert_true(r.units_resumed > 0);
    assert_int_equal(notices, 1); /* the half record */
}

/* A new journalled mirror run plans a split depth and chunks that depend
 * on n alone, whatever the thread count, so any thread count resumes it. */
static void test_plan_ignores_threads(void **state)
{
    (void)state;
    uint64_t identity = 0, chunk = 0;
    for (int threads = 1; threads <= 64; threads *= 4) {
        nq_settings s = settings_for(17, 0);
        s.threads = threads;
        nq_plan plan;
        assert_int_equal(nq_plan_open(&plan, &s, threads, 1, NULL, 0), 0);
        assert_int_equal(nq_job_split_depth(plan.job), nq_plan_default_split(17));
        if (threads == 1) {
            identity = nq_job_identity(plan.job);
            chunk = plan.chunk_units;
        }
        assert_true(nq_job_identity(plan.job) == identity);
        assert_true(plan.chunk_units == chunk);
        assert_true((nq_job_units(plan.job) + chunk - 1) / chunk <= NQ_PLAN_MAX_CHUNKS);
        nq_plan_close(&plan);
        unlink(path);
    }
    assert_int_equal(nq_plan_default_split(20), 5);

    /* An existing journal's split depth wins over the default. */
    nq_settings s = settings_for(12, 4);
    count_ok(&s);
    s.split_depth = 0;
    nq_plan plan;
    assert_int_equal(nq_plan_open(&plan, &s, 2, 1, NULL, 0), 0);
    assert_int_equal(nq_job_split_depth(plan.job), 4);
    nq_plan_close(&plan);
}

/* Engines whose automatic split depth follows the thread count (full)
 * resume with another thread count too: the journal's depth is planned. */
static void test_full_resumes_with_other_threads(void **state)
{
    (void)state;
    nq_settings s = settings_for(14, 0);
    s.engine = NQ_ENGINE_FULL;
    s.threads = 1;
    int depth_alone = -1;
    for (int threads = 1; threads <= 256; threads *= 256) {
        nq_settings t = s;
        t.threads = threads;
        t.checkpoint_path = NULL;
        nq_job *job = NULL;
        assert_int_equal(nq_job_create(&job, &t), 0);
        if (threads == 1)
            depth_alone = nq_job_split_depth(job);
        else /* the test means something only if the depth would differ */
            assert_int_not_equal(nq_job_split_depth(job), depth_alone);
        nq_job_free(&job);
        if (threads == 1)
            continue;
        t.checkpoint_path = path;
        unlink(path);
        s.threads = 1;
        count_ok(&s); /* written with one thread ... */
        nq_result r = count_ok(&t); /* ... rerun with many */
        assert_true(r.total == known_total[14]);
        assert_int_equal(r.split_depth, depth_alone);
        assert_int_equal(r.units_resumed, r.subproblems);
    }
}

typedef struct progress_log {
    int calls, finals;
    uint64_t last_done, total;
    int monotone;
    atomic_int *cancel_at_half;
} progress_log;

static void on_progress(const nq_progress *p, void *user)
{
    progress_log *log = user;
    log->calls++;
    log->finals += p->final;
    if (p->units_done < log->last_done)
        log->monotone = 0;
    log->last_done = p->units_done;
    log->total = p->units_total;
    if (log->cancel_at_half && p->units_done * 2 >= p->units_total)
        atomic_store(log->cancel_at_half, 1);
}

/* Progress reaches the total with exactly one final call; a cancel raised
 * mid-run stops it, and the resume completes it exactly. */
static void test_progress_cancel_resume(void **state)
{
    (void)state;
    atomic_int cancel = 0;
    progress_log log = {.monotone = 1, .cancel_at_half = &cancel};
    nq_settings s = settings_for(15, 5);
    s.progress = on_progress;
    s.progress_user = &log;
    s.progress_interval = 0;
    s.cancel = &cancel;
    nq_result r;
    int ret = nq_count(&s, &r);
    if (ret == 0) {
        /* The machine outran the monitor's first tick: nothing to resume. */
        assert_true(r.total == known_total[15]);
    } else {
        assert_int_equal(ret, NQ_ECANCELLED);
        assert_int_equal(log.finals, 1);
        assert_true(r.subproblems < log.total);
    }
    log = (progress_log){.monotone = 1};
    atomic_store(&cancel, 0);
    r = count_ok(&s);
    assert_true(r.total == known_total[15]);
    assert_int_equal(log.finals, 1);
    assert_true(log.monotone);
    assert_int_equal(log.last_done, log.total);
    assert_true(r.units_resumed > 0 || ret == 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_complete_and_rerun, setup, teardown),
        cmocka_unit_test_setup_teardown(test_record_and_reload, setup, teardown),
        cmocka_unit_test_setup_teardown(test_torn_tail_every_offset, setup, teardown),
        cmocka_unit_test_setup_teardown(test_torn_garbage_and_zeros, setup, teardown),
        cmocka_unit_test_setup_teardown(test_middle_damage_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_mismatch_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_not_a_journal, setup, teardown),
        cmocka_unit_test_setup_teardown(test_forged_done_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_unusable_paths, setup, teardown),
        cmocka_unit_test_setup_teardown(test_locked_journal_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_write_failure_mid_run, setup, teardown),
        cmocka_unit_test_setup_teardown(test_plan_ignores_threads, setup, teardown),
        cmocka_unit_test_setup_teardown(test_full_resumes_with_other_threads, setup, teardown),
        cmocka_unit_test_setup_teardown(test_progress_cancel_resume, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
