// The Gaussian generators' CPU twins compiled with -march=x86-64-v4 (AVX-512): gaussian_batch.hpp.
#define GAUSSIAN_BATCH_NAME gaussian_batch_x86_64_v4
#include "gaussian_batch_body.inc"
