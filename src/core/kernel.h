/*
 * kernel.h - the kernel levels: which instruction-set build of the hot
 * loops a process runs, and how an engine names and picks its copies.
 *
 * Every engine's hot loops (its "kernel sources", listed as such in the
 * engine's meson.build) are compiled once per level, each copy with the
 * level's instruction-set flags and its own function names: a kernel
 * source defines its external functions as NQ_KERNEL_FN(name), which
 * becomes name_portable, name_avx2 or name_avx512.  So a portable build
 * (-Dnative=false) carries the AVX2 and AVX-512 loops too, and a native
 * build gets the same copies, tuned for its machine.
 *
 * The level is chosen once per process: the best the CPU runs (its
 * instruction sets, and the operating system saving their registers), or
 * the one the environment variable NQ_KERNEL names.  Each engine has one
 * chooser that maps the level to its table of function pointers; the hot
 * code calls through the table at a coarse cut (a whole unit's search, a
 * whole sort, a whole join block), so nothing is chosen inside a hot loop
 * and each copy's loops stay whole, inlined functions.
 */
#ifndef NQ_CORE_KERNEL_H
#define NQ_CORE_KERNEL_H

/* The levels, each including the ones below it. */
enum nq_kernel_level {
    NQ_KERNEL_PORTABLE, /* the build's own target: any CPU it runs on */
    NQ_KERNEL_AVX2,     /* x86-64-v3: AVX2, BMI1/2, FMA, LZCNT, POPCNT */
    NQ_KERNEL_AVX512,   /* x86-64-v4 (AVX-512 F, CD, BW, DQ, VL) with VBMI,
                           VPOPCNTDQ, BITALG and GFNI: Ice Lake, Zen 4 and later */
    NQ_KERNEL_LEVELS
};

/* The level a kernel source is being compiled for: meson defines
 * NQ_KERNEL_LEVEL in each copy (see src/meson.build). */
#define NQ_KERNEL_CAT_(a, b) a##b
#define NQ_KERNEL_CAT(a, b) NQ_KERNEL_CAT_(a, b)
#if defined(NQ_KERNEL_LEVEL)
#if NQ_KERNEL_LEVEL == 2
#define NQ_KERNEL_FN(name) NQ_KERNEL_CAT(name, _avx512)
#elif NQ_KERNEL_LEVEL == 1
#define NQ_KERNEL_FN(name) NQ_KERNEL_CAT(name, _avx2)
#else
#define NQ_KERNEL_FN(name) NQ_KERNEL_CAT(name, _portable)
#endif
#endif

/* Declares the three copies of a kernel function of type `type` (a
 * function type).  Every build compiles all three; on a CPU family other
 * than x86-64 they are alike, and only the portable one is ever chosen. */
#define NQ_KERNEL_DECLARE(type, name)                                                              \
    type NQ_KERNEL_CAT(name, _portable), NQ_KERNEL_CAT(name, _avx2), NQ_KERNEL_CAT(name, _avx512)

/* 1 when this build compiled `level` and this CPU and its operating system
 * run it, else 0. */
int nq_kernel_supported(enum nq_kernel_level level);

/* The level this process runs: NQ_KERNEL's when it is set and not empty,
 * else the best supported.  Read once; thread-safe.  Returns the level, or
 * NQ_EINVAL_ARG when NQ_KERNEL names no level, or NQ_EUNSUPPORTED when it
 * names one this build or CPU cannot run (nq_check_settings refuses every
 * run then, naming the value). */
int nq_kernel_level(void);

/* The level a chooser uses: nq_kernel_level(), or the portable level when
 * that is an error (no job is planned then, so this is never reached in a
 * run; it keeps the choosers total). */
enum nq_kernel_level nq_kernel_level_or_portable(void);

/* The level's name as NQ_KERNEL takes it ("portable", "avx2", "avx512"),
 * or NULL for a value out of range. */
const char *nq_kernel_level_name(int level);

#endif /* NQ_CORE_KERNEL_H */
