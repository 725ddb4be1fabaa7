// onepass/config.hpp — compile-time configuration shared by host and device code.
#pragma once

#if defined(__CUDACC__)
/// Marks a function callable from host and device code when compiled by nvcc;
/// expands to nothing for a plain C++ compiler.
#define ONEPASS_HD __host__ __device__
#else
#define ONEPASS_HD
#endif
