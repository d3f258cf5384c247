/* The library's error reporting: the status a call returns and the detail
 * message wk_last_error_message() gives for it. */
#ifndef WARPKIT_API_ERROR_H
#define WARPKIT_API_ERROR_H

#include "warpkit.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Records a detail message for wk_last_error_message() and returns status. */
wk_status wk_fail(wk_status status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
void wk_clear_error(void);

#ifdef __cplusplus
}
#endif

#endif
