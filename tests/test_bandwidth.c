/* test_bandwidth: the size of the cold-copy rotation buffers. Twice the
 * cache they must outgrow, at least 8 MiB, whole 4 MiB units, and (H10) at
 * most KCAL_BANDWIDTH_POOL_MAX: a VM that reports a 508 MiB L3 used to get
 * two 1016 MiB buffers, faulted in before the probe's clock started. */
#include <string.h>

#include "probe/bandwidth.h"
#include "tests/check.h"
#include "probe/knee.h"

#define MiB (1ul << 20)

int main(void)
{
    int capped = -1;
    CHECK(kcal_bandwidth_pool_bytes(0, &capped) == 8 * MiB && capped == 0);
    CHECK(kcal_bandwidth_pool_bytes(30 * MiB, &capped) == 60 * MiB && !capped);
    /* 2 x 45 MiB = 90 MiB, rounded up to 92 MiB (23 units of 4 MiB). */
    CHECK(kcal_bandwidth_pool_bytes(45 * MiB, &capped) == 92 * MiB && !capped);
    CHECK(kcal_bandwidth_pool_bytes(128 * MiB, &capped) == 256 * MiB && !capped);
    CHECK(kcal_bandwidth_pool_bytes(508 * MiB, &capped) == KCAL_BANDWIDTH_POOL_MAX);
    CHECK(capped == 1);
    CHECK(KCAL_BANDWIDTH_POOL_MAX <= 256 * MiB);
    CHECK(kcal_bandwidth_pool_bytes(4096 * MiB, NULL) == KCAL_BANDWIDTH_POOL_MAX);
    /* Where the size comes from today: hwloc's last-level cache. */
    kcal_topo_info ti = {.llc = 508 * MiB};
    kcal_cold_cache cc = kcal_bandwidth_cold_cache(&ti);
    CHECK(cc.bytes == 508 * MiB && cc.source != NULL);
    /* issue 9: the measured knee, when there is one, sizes the rotation. */
    cc = kcal_bandwidth_cold_cache_knee(&ti, 40.0 * MiB);
    CHECK(cc.bytes == 40 * MiB && strstr(cc.source, "measured") != NULL);
    CHECK(kcal_bandwidth_pool_bytes(cc.bytes, &capped) == 80 * MiB && !capped);
    cc = kcal_bandwidth_cold_cache_knee(&ti, 0);
    CHECK(cc.bytes == 508 * MiB);
    /* The knee's working sets: 64K doubling up to 4x hwloc's cache, at
     * least 16 MiB, at most the cap (two 256 MiB buffers). */
    CHECK(kcal_knee_max_bytes(508 * MiB, 512 * MiB) == 512 * MiB);
    CHECK(kcal_knee_max_bytes(1 * MiB, 512 * MiB) == 16 * MiB);
    CHECK(kcal_knee_max_bytes(32 * MiB, 512 * MiB) == 128 * MiB);
    long ws[64];
    size_t n = kcal_knee_ws_list(4096, 16 * MiB, ws, 64);
    CHECK(n == 9 && ws[0] == 16 && ws[8] == 4096); /* 64K..16M in pages */
    CHECK(kcal_knee_ws_list(4096, 16 * MiB, ws, 3) == 3);
    return check_report();
}
