/* wk_version and wk_version_number: the version this library was built as,
 * from the header's macros (which CMake checks against project(VERSION)). */
#include "warpkit.h"

#define WK_STRINGIFY_(x) #x
#define WK_STRINGIFY(x) WK_STRINGIFY_(x)

const char *wk_version(void)
{
    return WK_STRINGIFY(WARPKIT_VERSION_MAJOR) "." WK_STRINGIFY(WARPKIT_VERSION_MINOR) "." WK_STRINGIFY(
        WARPKIT_VERSION_PATCH);
}

int wk_version_number(void) { return WARPKIT_VERSION_NUMBER; }
