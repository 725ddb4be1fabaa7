// The walking batch compiled with -march=x86-64-v4 (AVX-512 F/BW/CD/DQ/VL): walking_batch.hpp.
#define WALKING_BATCH_NAME walking_batch_x86_64_v4
#include "walking_batch_body.inc"
