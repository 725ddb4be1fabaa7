// The walking batch compiled with -march=x86-64-v3 (AVX2, FMA, BMI2): walking_batch.hpp.
#define WALKING_BATCH_NAME walking_batch_x86_64_v3
#include "walking_batch_body.inc"
