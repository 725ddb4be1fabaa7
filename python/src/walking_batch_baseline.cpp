// The walking batch for any x86-64 (or any other) CPU: walking_batch.hpp.
#define WALKING_BATCH_NAME walking_batch_baseline
#include "walking_batch_body.inc"
