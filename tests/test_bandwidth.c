/* test_bandwidth: the size of the cold-copy rotation buffers. Twice the
 * cache they must outgrow, at least 8 MiB, whole 4 MiB units, and (H10) at
 * most KCAL_BANDWIDTH_POOL_MAX: a VM that reports a 508 MiB L3 used to get
 * two 1016 MiB buffers, faulted in before the probe's clock started. */
#include "bandwidth.h"
#include "check.h"

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
    return check_report();
}
