/*
 * kernel.c - choosing the kernel level of this process (see kernel.h), and
 * the public nq_kernel_name().
 *
 * The CPU is asked once, through the compiler's CPU-feature builtins: on
 * x86-64 they report AVX and AVX-512 only when the operating system saves
 * those registers (XGETBV), which the level needs as much as the CPU.
 */
#include <stdlib.h>
#include <string.h>

#include "core/kernel.h"
#include "nqueens/nqueens.h"

static const char *const level_names[NQ_KERNEL_LEVELS] = {
    [NQ_KERNEL_PORTABLE] = "portable",
    [NQ_KERNEL_AVX2] = "avx2",
    [NQ_KERNEL_AVX512] = "avx512",
};

const char *nq_kernel_level_name(int level)
{
    return level >= 0 && level < NQ_KERNEL_LEVELS ? level_names[level] : NULL;
}

int nq_kernel_supported(enum nq_kernel_level level)
{
    switch (level) {
    case NQ_KERNEL_PORTABLE:
        return 1;
#if defined(NQ_KERNEL_X86)
    case NQ_KERNEL_AVX2:
        __builtin_cpu_init();
        return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi") &&
               __builtin_cpu_supports("bmi2") && __builtin_cpu_supports("fma") &&
               __builtin_cpu_supports("popcnt");
    case NQ_KERNEL_AVX512:
        return nq_kernel_supported(NQ_KERNEL_AVX2) && __builtin_cpu_supports("avx512f") &&
               __builtin_cpu_supports("avx512cd") && __builtin_cpu_supports("avx512bw") &&
               __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl") &&
               __builtin_cpu_supports("avx512vbmi") &&
               __builtin_cpu_supports("avx512vpopcntdq") &&
               __builtin_cpu_supports("avx512bitalg") && __builtin_cpu_supports("gfni");
#endif
    default:
        return 0;
    }
}

/* The level NQ_KERNEL asks for (or the best one), as nq_kernel_level()
 * returns it. */
static int choose_level(void)
{
    const char *env = getenv("NQ_KERNEL");
    if (env && *env) {
        for (int level = 0; level < NQ_KERNEL_LEVELS; level++)
            if (strcmp(env, level_names[level]) == 0)
                return nq_kernel_supported((enum nq_kernel_level)level) ? level : NQ_EUNSUPPORTED;
        return NQ_EINVAL_ARG;
    }
    int best = NQ_KERNEL_LEVELS - 1;
    while (best > NQ_KERNEL_PORTABLE && !nq_kernel_supported((enum nq_kernel_level)best))
        best--;
    return best;
}

/* The choice, or NQ_KERNEL_LEVELS until the first call makes it.  Relaxed
 * atomics: threads that race to make it all store the same value. */
static int chosen = NQ_KERNEL_LEVELS;

int nq_kernel_level(void)
{
    int level = __atomic_load_n(&chosen, __ATOMIC_RELAXED);
    if (level == NQ_KERNEL_LEVELS) {
        level = choose_level();
        __atomic_store_n(&chosen, level, __ATOMIC_RELAXED);
    }
    return level;
}

enum nq_kernel_level nq_kernel_level_or_portable(void)
{
    const int level = nq_kernel_level();
    return level < 0 ? NQ_KERNEL_PORTABLE : (enum nq_kernel_level)level;
}

const char *nq_kernel_name(void)
{
    return nq_kernel_level_name(nq_kernel_level());
}
