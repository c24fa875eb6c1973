/*
 * thread_count.h - how the tests see the threads a run creates: the
 * entries of /proc/self/task, the kernel's own list of this process's
 * threads, which no OpenMP setting can hide.  The tests that use it skip
 * under ThreadSanitizer, whose own thread would be counted too.
 */
#ifndef NQ_TEST_THREAD_COUNT_H
#define NQ_TEST_THREAD_COUNT_H

#include <dirent.h>

/* Threads of this process now, or -1 where /proc cannot tell. */
static inline int nq_test_threads_now(void)
{
    DIR *dir = opendir("/proc/self/task");
    if (!dir)
        return -1;
    int count = 0;
    for (struct dirent *e; (e = readdir(dir)) != NULL;)
        count += e->d_name[0] != '.'; /* skips "." and ".." */
    closedir(dir);
    return count;
}

/* True in a ThreadSanitizer build (gcc's macro or clang's feature test). */
#if defined(__SANITIZE_THREAD__)
#define NQ_TEST_UNDER_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define NQ_TEST_UNDER_TSAN 1
#endif
#endif
#ifndef NQ_TEST_UNDER_TSAN
#define NQ_TEST_UNDER_TSAN 0
#endif

#endif /* NQ_TEST_THREAD_COUNT_H */
