// The Gaussian generators' CPU twins compiled with -march=x86-64-v3 (AVX2, FMA, BMI2): gaussian_batch.hpp.
#define GAUSSIAN_BATCH_NAME gaussian_batch_x86_64_v3
#include "gaussian_batch_body.inc"
