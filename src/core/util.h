/*
 * util.h - small helpers every layer uses: the resolved thread count, a
 * monotonic clock, the hash that job identities are built from, a
 * growing array and 128-bit counts in decimal.
 */
#ifndef NQ_CORE_UTIL_H
#define NQ_CORE_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "nqueens/nqueens.h"

/* Resolved thread count: threads > 0 as given, else OMP_NUM_THREADS as
 * nq_env_threads() reads it, else the OpenMP default (one per core the
 * process may use), or 1 in a build without OpenMP.  -1 when
 * OMP_NUM_THREADS is set but not a thread count (nq_check_settings says
 * so before any run). */
int nq_resolve_threads(int threads);

/* Threads for a parallel region that plans or estimates a job planned for
 * `threads` threads: that many, but never more than this process's OpenMP
 * default, since under MPI a job is planned for every rank's threads and
 * each process has only its own share of them. */
int nq_local_threads(int threads);
/* OMP_NUM_THREADS read by the library itself, not by the OpenMP runtime,
 * which misreads values it should refuse (0, 2^32, lists, junk).  Returns
 * 0 when it is unset or empty, the count when it is one decimal integer
 * from 1 to NQ_MAX_THREADS and nothing else, else -1; *raw (when not
 * NULL) gets the value as given, or NULL when unset. */
int nq_env_threads(const char **raw);

/* Writes v in decimal into buf (size bytes; 40 hold any value), for
 * nq_u128_to_string() and for the layers below the API that name counts in
 * messages.  Returns buf, or NULL (buf untouched) when buf is NULL or too
 * small. */
char *nq_decimal(nq_u128 v, char *buf, size_t size);

/* Seconds on a monotonic clock. */
double nq_now(void);

/* The calling thread's CPU time in seconds (other load on the machine
 * barely moves it). */
double nq_thread_seconds(void);

/* Replaces every control character of text (newline, tab, escape...) with
 * '?', so that a message quoting what a user gave (a path, a variable's
 * value) stays one line and cannot drive a terminal. */
void nq_one_line(char *text);

/* FNV-1a 64-bit over len bytes, continuing from h (start with NQ_HASH_SEED). */
#define NQ_HASH_SEED UINT64_C(0xcbf29ce484222325)
uint64_t nq_hash_bytes(uint64_t h, const void *data, size_t len);

/* A list built by appending items of one size (start it zeroed). */
typedef struct nq_array {
    void *items;
    size_t count, cap;
    int failed; /* an append found no memory: the list is incomplete */
} nq_array;

/* Appends the `size` bytes at item to *a, doubling its room when it is full
 * (to `first` items at first).  When the room cannot be had it sets
 * a->failed and drops this and every later item; a->items stays the
 * caller's to free either way. */
void nq_array_push(nq_array *a, const void *item, size_t size, size_t first);

#endif /* NQ_CORE_UTIL_H */
