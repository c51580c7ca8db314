/*
 * gpu_problem.h — one conv problem on the GPU against the CPU reference, shared by the GPU tests
 * (test_gpu_random.c, test_gpu_edge.c, test_sm90_kernels.c, test_sm90_rows.c, test_streams.c).
 *
 * Every check: fresh random data uniform in [-1, 1] (never exactly 0: cli/data.h's data_fill),
 * inputs surrounded by 4 KB guards of 0xFF bytes (NaN in every dtype, so an unmasked
 * out-of-bounds read shows up as NaN), y surrounded by 4 KB guards of 0xA5 that must survive, y
 * itself poisoned with 0xFF (NaN) before each run; every output element must satisfy
 * |out - ref| <= tol (tol_conv, cli/tolerance.h) and must not be NaN; the inputs must be unchanged.
 *
 * sm90 kernels are forced through the experimental plan hints (igemm_plan_hints_t) in their text
 * form ("kernel=pingpong,tile=128x64,grid=3"); each forced plan's description must name what was
 * forced (a list of substrings, "!x" for one that must not appear).
 */
#ifndef IGEMM_TEST_GPU_PROBLEM_H
#define IGEMM_TEST_GPU_PROBLEM_H

#include <stddef.h>
#include <stdint.h>

#include "data.h"
#include "gpu_util.h"
#include "igemm.h"
#include "test.h"

/* Built without CUDA: a GPU test registers as skipped. */
#define GPU_SKIP_TEST(name)                                                                   \
    TEST(name)                                                                                \
    {                                                                                         \
        test_skip("built without CUDA");                                                      \
    }

/* A desc from the usual fields: square stride, padding and dilation on both axes. */
igemm_conv2d_desc_t conv_shape(int64_t n, int64_t h, int64_t w, int64_t c, int64_t k, int64_t r, int64_t s,
                               int64_t stride, int64_t pad, int64_t dil, int64_t groups, igemm_dtype_t in,
                               igemm_dtype_t out);

/* Padding of a random conv d: "same" padding (dil * (filter - 1) / 2 on each side) where same, one
 * more row at the bottom and column at the left where asym; then h and w grown until the filter
 * fits the padded input. */
void conv_pad_random(igemm_conv2d_desc_t *d, int same, int asym);

/* The three epilogue kinds the sm90 kernel tests sweep: 0 none; 1 bias + ReLU; 2 scale + bias +
 * 0.75 * residual + GELU (tanh). They are the kernels' three epilogue instances (sm90_epi_kind). */
igemm_epilogue_t epilogue_kind(int ek);

/* A random epilogue: any activation, each operand on or off, alpha and beta in +-[0.25, 2]. */
void gen_epilogue(data_rng_t *g, igemm_epilogue_t *e);

const char *path_str(igemm_path_t p);
double now_s(void);

/* What igemm_plan_describe() says of a plan of each sm90 kernel (igemm_kernel_t): a substring only
 * that kernel's descriptions contain (cooperative: "rows each)"; pixels_n_pingpong's also appears
 * in halo-row plans of two consumers, which say "halo rows" besides). "" for AUTO. */
const char *kernel_says(int kernel);

#ifdef IGEMM_HAVE_CUDA

#define GUARD 4096
#define IN_GUARD_BYTE 0xFF  /* NaN pattern in f16, bf16 and f32 */
#define OUT_GUARD_BYTE 0xA5 /* must be untouched after a run */
#define POISON_BYTE 0xFF    /* y before each run: NaN */

typedef struct problem {
    igemm_conv2d_desc_t d;
    igemm_epilogue_t e;
    int64_t p, q, xe, we, ye;
    size_t ysz; /* bytes per y element */
    void *hx, *hw, *hres, *href, *hout;
    float *hscale, *hbias;
    dbuf_t x, w, y, res, scale, bias;
    char str[512];
} problem_t;

/* Random data, device buffers, and (with_ref) the reference output. Returns 0, or -1 after
 * recording the failure (the caller still calls problem_free). */
int problem_init(problem_t *pb, const igemm_conv2d_desc_t *d, const igemm_epilogue_t *e, data_rng_t *g,
                 int with_ref);
void problem_free(problem_t *pb);

/* Poisons y, runs plan on stream with the given operand pointers, synchronises and downloads y
 * into hout. Returns run()'s status, or CUDA_ERROR for an error after it (failure recorded). */
igemm_status_t problem_run_ptrs(problem_t *pb, igemm_plan_t *plan, void *stream, const void *x, const void *w,
                                void *y, const void *res);
igemm_status_t problem_run(problem_t *pb, igemm_plan_t *plan, void *stream);

/* Compares hout with href element by element, checks that the inputs are unchanged and every
 * guard intact. Returns the number of bad elements (plus guard damage); records at most 3
 * failures per call. *worst (may be NULL) gets the largest err/tol seen. */
int64_t problem_check(problem_t *pb, const char *tag, double *worst);

typedef struct run_stats {
    int ran[6];   /* by igemm_plan_path */
    int refused;  /* forced path or hints refused the shape (NOT_SUPPORTED) */
    int failed;   /* configs with a wrong element, a status or a CUDA error */
    int64_t elems;
    double worst;     /* max err / tol over passing elements */
    double worst_f32; /* the same over f32 outputs only (no final-rounding flips: accumulation) */
} run_stats_t;

/* Runs one configuration on path under hints (NULL: none); data from g. want_desc (may be NULL):
 * a substring the plan's description must contain. refuse_ok: a NOT_SUPPORTED plan creation is
 * returned as 1 (nothing recorded). Returns 0 (ran; a wrong result is recorded in st and as a
 * failure), 1 (refused), or -1 on a CUDA error that makes carrying on pointless. */
int run_one(const igemm_conv2d_desc_t *d, const igemm_epilogue_t *e, igemm_path_t path,
            const igemm_plan_hints_t *hints, const char *want_desc, data_rng_t *g, run_stats_t *st, int refuse_ok);

/* 1 if the current device is sm_90 (compute capability 9.0), else 0. */
int device_is_sm90(void);
/* device_is_sm90(), marking the test skipped ("needs an sm_90 device") where it is 0. */
int require_sm90(void);
/* The current device's SM count (0 if unknown). */
int device_sm_count(void);

/* Creates an sm90 plan for pb under hints (text form; "" or NULL: none), checks its description
 * against want (NULL-terminated, may be NULL: each string must appear, or with a leading '!' must
 * not; "" entries are skipped), runs it (y poisoned first) and
 * checks y against the reference under tag. Returns 1 if it ran and matched (pb->hout then holds
 * y), 0 after recording the failure. */
int sm90_run_hinted(problem_t *pb, const char *hints, const char *const *want, const char *tag);

/* Runs pb as sm90_run_hinted does twice: under base + var[0], then base + var[1] (hints texts
 * joined by ','; each plan's description checked against want[0] / want[1]); both must match the
 * reference and each other bit for bit (a difference is recorded, `what` its message). Returns 1
 * if both ran and matched the reference, else 0. */
int sm90_run_two(problem_t *pb, const char *base, const char *const var[2], const char *const *const want[2],
                 const char *tag, const char *what);

/* Plans d (no epilogue) on path under hints (NULL: none) and writes the plan's description, or
 * the error message, into out; returns the plan creation's status (INVALID_VALUE for hints that do
 * not parse). */
igemm_status_t plan_text(const igemm_conv2d_desc_t *d, igemm_path_t path, const char *hints, char *out, size_t len);

/* Plans d / e under AUTO (its description must contain want), runs it twice on data from g: each
 * run matches the reference (recorded under "<tag> run 1" / the check's tag) and the two agree bit
 * for bit ("two runs of one <tag> plan differ"). */
void check_plan_repeatable(const igemm_conv2d_desc_t *d, const igemm_epilogue_t *e, data_rng_t *g, const char *want,
                           const char *tag);

/* The random test of a memory-bound family: n problems gen(g, it), it = 0 .. n-1, each with a
 * random epilogue (gen_epilogue), forced onto IGEMM_PATH_MEMORY, the plan's description containing
 * want, run against the reference (stops after 5 failures); prints "  <label>: ..." and checks that
 * all n ran on the family (none refused) and none failed. seed: the data seed (test_seed). */
void run_memory_random(igemm_conv2d_desc_t (*gen)(data_rng_t *g, int it), int n, uint64_t seed, const char *want,
                       const char *label);
/* run_memory_random with per-configuration hints: configuration it is skipped where skip(it) (may
 * be NULL; before anything is drawn for it), and after its problem and epilogue are drawn,
 * hint(g, it, d, h) (may be NULL: no hints) fills h from igemm_plan_hints_default(). Checks that
 * every configuration not skipped ran on the family and none failed. */
void run_memory_random_hinted(igemm_conv2d_desc_t (*gen)(data_rng_t *g, int it), int (*skip)(int it),
                              void (*hint)(data_rng_t *g, int it, const igemm_conv2d_desc_t *d, igemm_plan_hints_t *h),
                              int n, uint64_t seed, const char *want, const char *label);

/* The loop of the sm90 kernel tests: each of ncases problems (the desc of case i at byte offset
 * i * stride from descs: a field of a case struct) under each epilogue kind of epilogue_kind, with
 * the reference, data from seed; fn runs one problem (ci: its case, ek its epilogue kind) and
 * returns 1 if it passed. Returns the number that passed, or -1 if a problem could not be set up
 * (already recorded). */
int sm90_each_case(const igemm_conv2d_desc_t *descs, size_t stride, int ncases, uint64_t seed,
                   int (*fn)(problem_t *pb, int ci, int ek, const void *ctx), const void *ctx);

#endif /* IGEMM_HAVE_CUDA */

#endif
