/* Benchmark entry points shared by the warpkit command's subcommands. */
#ifndef WARPKIT_BENCH_H
#define WARPKIT_BENCH_H

#include "cli.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Memory-bandwidth ceilings measured on the current device, in GB/s
 * (10^9 bytes per second). */
typedef struct wk_ceilings {
    double read_gbs;  /* best of several streaming-read kernels        */
    double copy_gbs;  /* device-to-device copy, bytes read + written   */
} wk_ceilings;

/* Measures both ceilings on the current device. Returns 0 on success. */
int wk_measure_ceilings(wk_ceilings *out);

/* `warpkit bench`: warpkit beside CUB, table on stdout, JSON if asked.
 * --op scan hands over to wk_bench_scan_main, --op select to
 * wk_bench_select_main, --op segmented to wk_bench_segmented_main. */
int wk_bench_main(const wk_cli_options *opts);

/* `warpkit bench --op scan`: warpkit's scans beside CUB's DeviceScan. */
int wk_bench_scan_main(const wk_cli_options *opts);

/* `warpkit bench --op select`: warpkit's selects and partition beside CUB's
 * DeviceSelect (If, Flagged, Unique) and DevicePartition::If. */
int wk_bench_select_main(const wk_cli_options *opts);

/* `warpkit bench --op segmented`: warpkit's segmented reduce and inclusive
 * scan (f32 sums, uniform segments and power-law offsets) beside CUB's
 * DeviceSegmentedReduce, DeviceSegmentedScan and DeviceScan by key. */
int wk_bench_segmented_main(const wk_cli_options *opts);

/* `warpkit info`: device properties and the measured ceilings. */
int wk_info_main(const wk_cli_options *opts);

/* `warpkit ladder`: the seeds' reduction kernels, verified and timed;
 * --op scan: the seeds' three-kernel scan (programs/ladder/ladder_scan.cu). */
int wk_ladder_main(const wk_cli_options *opts);
int wk_ladder_scan_main(const wk_cli_options *opts);

/* `warpkit tune`: block and grid sizes swept for kernels 07, 08 and 12. */
int wk_tune_main(const wk_cli_options *opts);

#ifdef __cplusplus
}
#endif

#endif
