// The co-Z mma entry points alone.
#include "schedule_gen.cuh"
#undef ECM_ENTRIES
#define ECM_ENTRIES(ENTRY) \
	ENTRY(p224, P224, coz, Coz, shenoy, Shenoy, mma, Mma, c30, 4, 3, 152, 0) \
	ENTRY(p256, P256, coz, Coz, shenoy, Shenoy, mma, Mma, c30, 4, 3, 152, 0)
#include "ecmul.cu"
