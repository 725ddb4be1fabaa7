// The Gaussian generators' CPU twins compiled for the target's baseline, with -O3: gaussian_batch.hpp.
#define GAUSSIAN_BATCH_NAME gaussian_batch_baseline
#include "gaussian_batch_body.inc"
