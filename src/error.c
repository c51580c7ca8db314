/*
 * error.c — the ground floor: the thread-local message of the last failing call and the status
 * strings. Nothing here calls another file of the library.
 */
#include "error.h"

#include <stdarg.h>
#include <stdio.h>

static _Thread_local char t_last_error[2048]; /* the planner lists every family's refusal */

igemm_status_t igemm_set_error(igemm_status_t status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(t_last_error, sizeof t_last_error, fmt, ap);
    va_end(ap);
    return status;
}

void igemm_clear_error(void) { t_last_error[0] = '\0'; }

IGEMM_API const char *igemm_last_error(void) { return t_last_error; }

IGEMM_API const char *igemm_status_string(igemm_status_t s)
{
    switch (s) {
    case IGEMM_STATUS_SUCCESS: return "success";
    case IGEMM_STATUS_INVALID_VALUE: return "invalid value";
    case IGEMM_STATUS_NULL_POINTER: return "null pointer";
    case IGEMM_STATUS_OVERFLOW: return "size overflow";
    case IGEMM_STATUS_NOT_SUPPORTED: return "not supported";
    case IGEMM_STATUS_MISALIGNED: return "misaligned pointer";
    case IGEMM_STATUS_NO_DEVICE: return "no CUDA device";
    case IGEMM_STATUS_CUDA_ERROR: return "CUDA error";
    case IGEMM_STATUS_OUT_OF_MEMORY: return "out of memory";
    case IGEMM_STATUS_INTERNAL_ERROR: return "internal error";
    }
    return "unknown status";
}
