/*
 * instances.h — the table of compiled kernel instances of the Hopper families. The instance files
 * are generated at build time (instances/gen.sh, from instances/list.txt, into
 * build/gen/sm90/); each defines one table of sm90_instance_t, and the generated index lists the
 * tables. A family's run() finds its kernel once per plan with igemm_sm90_instance_find. C and
 * CUDA C.
 */
#ifndef IGEMM_SM90_INSTANCES_H
#define IGEMM_SM90_INSTANCES_H

#ifdef __cplusplus
extern "C" {
#endif

/* One instance: its key and the __global__ function. Unused key fields are 0. */
typedef struct sm90_instance { /* (struct tag: sm90.h declares it) */
    int kernel;   /* igemm_kernel_t: COOPERATIVE .. STEM_ROWS */
    int dtype;    /* igemm_dtype_t of x and w */
    int bm, bn;   /* tile (bm: rows of pixels, or TP with pixels as N) */
    int wm, nc;   /* 64-row blocks per consumer, consumer warpgroups */
    int bres;     /* filter resident */
    int rows;     /* halo rows: output rows per tile; stem rows: the filter's R */
    int ks;       /* stem rows: k16 steps per filter row */
    int tma;      /* y by TMA stores */
    int epi;      /* epilogue kind (0, 1, 2: sm90_epi_kind) */
    int gw;       /* grouped convs: the wgmma window (sm90.h sm90_group_tile); 0 without groups */
    const void *fn;
} sm90_instance_t;

/* The tables (generated index; each ends with an entry of fn NULL), NULL-terminated. */
extern const sm90_instance_t *const igemm_sm90_instance_tables[];

/* The instance whose key equals *key (fn ignored), or NULL. */
const void *igemm_sm90_instance_find(const sm90_instance_t *key);

#ifdef __cplusplus
}
#endif

#endif /* IGEMM_SM90_INSTANCES_H */
