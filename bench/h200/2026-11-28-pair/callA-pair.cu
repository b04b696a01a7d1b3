// The co-Z pair entry points alone; -DECM_MAX_REGS sets their cap.
#include "schedule_gen.cuh"
#undef ECM_ENTRIES
#define ECM_ENTRIES(ENTRY) \
	ENTRY(p224, P224, coz, Coz, shenoy, Shenoy, pair, Pair, c30, 2, 3, 232, 0) \
	ENTRY(p256, P256, coz, Coz, shenoy, Shenoy, pair, Pair, c30, 2, 3, 232, 0) \
	ENTRY(secp256k1, Secp256k1, coz, Coz, shenoy, Shenoy, pair, Pair, c30, 2, 3, 232, 0)
#include "ecmul.cu"
