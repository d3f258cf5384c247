/* A program of the distributed calls, built against the installed tree:
 * without a communicator it can only ask for a handle and be refused, which
 * is what the link needs. */
#include <warpkit_nccl.h>

#include <stdio.h>

int main(void)
{
    wk_dist *dist = NULL;
    wk_status st = wk_dist_create(&dist, NULL, NULL);
    printf("wk_dist_create without a context: %s (%s)\n", wk_status_string(st), wk_dist_last_error_message());
    return st == WK_ERROR_INVALID_ARGUMENT && dist == NULL ? 0 : 1;
}
