/* The version three ways: the header's macros, the library's wk_version()
 * and wk_version_number(), and CMake's project(VERSION) (passed in as
 * WK_PROJECT_VERSION). */
#include "test_util.h"

#include <stdio.h>
#include <string.h>

int main(void)
{
    wk_tally t = {0, 0};
    char macros[32];
    snprintf(macros, sizeof macros, "%d.%d.%d", WARPKIT_VERSION_MAJOR, WARPKIT_VERSION_MINOR,
             WARPKIT_VERSION_PATCH);
    printf("header %s, library %s (%d), project %s\n", macros, wk_version(), wk_version_number(),
           WK_PROJECT_VERSION);
    wk_expect(&t, strcmp(macros, WK_PROJECT_VERSION) == 0, "the header's macros match project(VERSION)");
    wk_expect(&t, strcmp(wk_version(), WK_PROJECT_VERSION) == 0, "wk_version() matches project(VERSION)");
    wk_expect(&t,
              wk_version_number() ==
                  WARPKIT_VERSION_MAJOR * 10000 + WARPKIT_VERSION_MINOR * 100 + WARPKIT_VERSION_PATCH,
              "wk_version_number() is MAJOR * 10000 + MINOR * 100 + PATCH");
    wk_expect(&t, wk_version_number() == WARPKIT_VERSION_NUMBER, "wk_version_number() matches the macro");
    return wk_tally_finish(&t);
}
