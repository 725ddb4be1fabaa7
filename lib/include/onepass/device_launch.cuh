// onepass/device_launch.cuh — kept for code outside the library that includes it
// (experiments/gaussian_throughput.cu): the launch geometry (onepass/launch_geometry.cuh)
// and the temporary-storage layout (onepass/call_protocol.hpp) under their former names in
// onepass::device. The library includes those two headers directly.
#pragma once

#include "onepass/call_protocol.hpp"
#include "onepass/launch_geometry.cuh"

namespace onepass::device {

using protocol::align_up;
using protocol::aligned_start;
using protocol::alternate_buffers_layout;

}  // namespace onepass::device
