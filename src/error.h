/*
 * error.h — the ground floor: the calling thread's last error message (src/error.c). Every
 * other file of the library reports failures through igemm_set_error; nothing here calls up.
 */
#ifndef IGEMM_ERROR_H
#define IGEMM_ERROR_H

#include "../include/igemm.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Formats the thread-local message (printf style); returns status, so that a failure reads
 * `return igemm_set_error(IGEMM_STATUS_INVALID_VALUE, "stride_h = %lld: ...", v);`. */
igemm_status_t igemm_set_error(igemm_status_t status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Clears the message (each public entry point starts with it). */
void igemm_clear_error(void);

#ifdef __cplusplus
}
#endif

#endif /* IGEMM_ERROR_H */
