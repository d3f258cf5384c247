#ifndef WARPKIT_VERIFY_H
#define WARPKIT_VERIFY_H

#include "cli.h"

/* `warpkit verify`: runs the reduce, scan and select checks on the GPU,
 * TEST PASS / TEST FAIL per case (TEST SKIP for a case the device or host has too
 * little free memory for). Returns 0 if none fails, 1 if any fails, 3
 * without a device. */
int wk_verify_main(const wk_cli_options *opts);

#endif
