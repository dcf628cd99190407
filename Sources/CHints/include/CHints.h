#ifndef LOOPSMITH_CHINTS_H
#define LOOPSMITH_CHINTS_H

// Hints to the CPU that Swift has no spelling for.

// Starts loading the cache line at `address` for a read soon, without keeping it in cache after
// (locality 0): the passes that stream a 33 MB float frame (FrameConverter) ask two rows ahead,
// which the hardware prefetcher alone does not (in `make bench`, converting a freshly drawn
// 1080x1920 frame took 8.1 ms without it, 4.5 ms with it).
static inline void chints_prefetch(const void *address) { __builtin_prefetch(address, 0, 0); }

// Starts loading the cache line at `address` to be written soon, keeping it cached: a row that a
// blend will read and write back (Raster's spans over a 33 MB canvas).
static inline void chints_prefetch_write(void *address) { __builtin_prefetch(address, 1, 3); }

// Eight square roots at once (`sqrtps`; one `vsqrtps` in the x86-64-v3 build), correctly rounded as
// Swift's `squareRoot()`, whose SIMD8 form takes a scalar library call a lane (Raster's fused
// discs: GraphicsContext+Discs.swift). Swift imports the vector type as SIMD8<Float>.
typedef float chints_float8 __attribute__((ext_vector_type(8)));
static inline chints_float8 chints_sqrt8(chints_float8 v) { return __builtin_elementwise_sqrt(v); }

// The x86 instruction sets the C side of this build was compiled for, one bit each: SSE4.1,
// SSE4.2, AVX, AVX2, FMA, BMI2, F16C, AVX-512F (`make build CPU=x86-64-v3` passes -march=haswell
// to both compilers, so Swift's code assumes the same). `loopsmith doctor` prints them.
static inline unsigned chints_compiled_x86_features(void) {
  unsigned f = 0;
#ifdef __SSE4_1__
  f |= 1u << 0;
#endif
#ifdef __SSE4_2__
  f |= 1u << 1;
#endif
#ifdef __AVX__
  f |= 1u << 2;
#endif
#ifdef __AVX2__
  f |= 1u << 3;
#endif
#ifdef __FMA__
  f |= 1u << 4;
#endif
#ifdef __BMI2__
  f |= 1u << 5;
#endif
#ifdef __F16C__
  f |= 1u << 6;
#endif
#ifdef __AVX512F__
  f |= 1u << 7;
#endif
  return f;
}

#endif
