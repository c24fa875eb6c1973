/*
 * test_cxx.cpp - the public header from C++.  meson builds this file once
 * for C++11 and once for C++20 (where a C++ compiler is found): the header
 * must compile in both, and a count, a cancelled count and the job
 * interface must work through it with a std::atomic<int> as cancel flag.
 * Exits 0 when all checks pass; prints the first failure otherwise.
 */
#include <nqueens/nqueens.h>

#include <atomic>
#include <cstdio>
#include <type_traits>

// The C++ cancel flag is the std::atomic<int> C++ callers already have,
// and it is laid out as C's atomic_int (one plain int).
static_assert(std::is_same<nq_cancel_flag, std::atomic<int> >::value,
              "nq_cancel_flag is std::atomic<int> in C++");
static_assert(sizeof(nq_cancel_flag) == sizeof(int) && alignof(nq_cancel_flag) == alignof(int),
              "std::atomic<int> must be laid out as C's atomic_int");

static int failures;

static void check(bool ok, const char *what, int ret)
{
    if (!ok) {
        std::fprintf(stderr, "test_cxx: %s (ret %d: %s)\n", what, ret, nq_strerror(ret));
        failures++;
    }
}

int main()
{
    nq_settings s;
    nq_default_settings(&s);
    s.n = 10;
    std::atomic<int> cancel(0);
    s.cancel = &cancel;

    nq_result r;
    int ret = nq_count(&s, &r);
    check(ret == 0 && r.total == 724, "N=10 counts 724", ret);

    cancel = 1; // raised before the run: nothing is solved
    ret = nq_count(&s, &r);
    check(ret == NQ_ECANCELLED, "a raised flag cancels the count", ret);

    cancel = 0;
    nq_job *job = nullptr;
    ret = nq_job_create(&job, &s);
    check(ret == 0, "nq_job_create", ret);
    if (job) {
        nq_counts sum = {0, 0};
        ret = nq_job_solve(job, 0, nq_job_units(job), 1, &cancel, &sum);
        check(ret == 0 && sum.total == 724, "the job's units sum to 724", ret);
        nq_job_free(&job);
    }
    return failures ? 1 : 0;
}
