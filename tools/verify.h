#ifndef WARPKIT_VERIFY_H
#define WARPKIT_VERIFY_H

#include "cli.h"

/* `warpkit verify`: runs the reduce checks on the GPU, TEST PASS / TEST FAIL
 * per case. Returns 0 if all pass, 1 if any fails, 3 without a device. */
int wk_verify_main(const wk_cli_options *opts);

#endif
