// The co-Z and combvt mma entry points of P-224 and P-256 alone, for A/B timings; -I picks the source.
#include "schedule_gen.cuh"
#undef ECM_ENTRIES
#define ECM_ENTRIES(ENTRY) \
	ENTRY(p224, P224, coz, Coz, shenoy, Shenoy, mma, Mma, c30, 4, 3, 152, 0) \
	ENTRY(p224, P224, combvt, Combvt, shenoy, Shenoy, mma, Mma, c30, 4, 3, 152, 0) \
	ENTRY(p256, P256, coz, Coz, shenoy, Shenoy, mma, Mma, c30, 4, 3, 152, 0) \
	ENTRY(p256, P256, combvt, Combvt, shenoy, Shenoy, mma, Mma, c30, 4, 3, 152, 0)
#include "ecmul.cu"
