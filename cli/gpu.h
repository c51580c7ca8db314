/*
 * gpu.h — the CLI's few direct uses of the CUDA runtime that the subcommands share: whether a GPU
 * is usable (and why not), the one-line device description of the report headers, the error
 * check macro, and device buffers with guard regions (check poisons them and verifies that a
 * kernel wrote nothing outside its output).
 * Builds without CUDA (IGEMM_HAVE_CUDA undefined): then only gpu_usable and gpu_require are
 * declared, and they report that this igemm has no CUDA.
 */
#ifndef IGEMM_CLI_GPU_H
#define IGEMM_CLI_GPU_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h> /* CLI_CU's snprintf */

/* Returns 1 if igemm can use a CUDA device, else 0 with why not, in a few words, in reason
 * (e.g. "no CUDA driver is installed"). reason may be NULL. */
int gpu_usable(char *reason, size_t len);

/* For a subcommand that needs a GPU: returns 1 if one is usable, else prints
 * "igemm: no CUDA GPU found (why); 'cmd' needs one" to stderr and returns 0. */
int gpu_require(const char *cmd);

#ifdef IGEMM_HAVE_CUDA
#include <cuda_runtime_api.h>

/* Checks a CUDA runtime call inside a function that has `char *err, size_t errlen` and a
 * `fail:` label: on error, writes "call: message" into err and jumps to fail. */
#define CLI_CU(call)                                                                       \
    do {                                                                                   \
        cudaError_t e_ = (call);                                                           \
        if (e_ != cudaSuccess) {                                                           \
            snprintf(err, errlen, "%s: %s", #call, cudaGetErrorString(e_));                \
            goto fail;                                                                     \
        }                                                                                  \
    } while (0)

/* Writes "NAME (sm_XY, N SMs, L2 MiB, memory GiB)" of the current device into buf. Returns 0, or
 * -1 with "unknown device (why)" in buf. */
int gpu_device_line(char *buf, size_t len);

/* Frees a device pointer (NULL-safe) on a cleanup path. Returns the cudaFree status; cleanup
 * paths after an error ignore it on purpose (the first error is the one reported). */
cudaError_t gpu_free(void *p);

/* Allocates `bytes` of device memory at *dptr and copies host's bytes there. Returns 0, or -1
 * with a message in err (*dptr freed and NULL). */
int gpu_upload(void **dptr, const void *host, size_t bytes, char *err, size_t errlen);

/* A device allocation with guard regions: ptr = base + guard, `guard` bytes on each side. */
typedef struct gpu_guarded {
    unsigned char *base;
    void *ptr;
    size_t bytes; /* usable bytes at ptr */
    size_t guard; /* bytes of guard on each side */
} gpu_guarded_t;

/* Allocates b (bytes usable, guard on each side). Returns 0, or -1 with a message in err. */
int gpu_guarded_alloc(gpu_guarded_t *b, size_t bytes, size_t guard, char *err, size_t errlen);
/* Fills the usable region and both guards with `byte`. Returns 0, or -1 with a message in err. */
int gpu_guarded_poison(gpu_guarded_t *b, unsigned char byte, char *err, size_t errlen);
/* Copies the usable region to host (b->bytes) and counts the guard bytes that no longer hold
 * `byte` into *damaged. Returns 0, or -1 with a message in err. */
int gpu_guarded_download(const gpu_guarded_t *b, void *host, unsigned char byte, int64_t *damaged, char *err,
                         size_t errlen);
/* Frees b (NULL-safe on a zeroed b). */
void gpu_guarded_free(gpu_guarded_t *b);
#endif

#endif
