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

// Eight pixels held a vector a channel (r, g, b, a) written as eight RGBA pixels of four floats
// at `p`: the 4x8 transpose in twelve shuffles (four unpacks, four shuffles, four half swaps) and
// four stores, where Swift's lane by lane stores built each pixel from inserts (Raster's fused
// discs write each chunk so: GraphicsContext+Discs.swift).
static inline void chints_store_pixels8(float *p, chints_float8 r, chints_float8 g, chints_float8 b,
                                        chints_float8 a) {
  // r0 g0 r1 g1 | r4 g4 r5 g5 and r2 g2 r3 g3 | r6 g6 r7 g7, the same of b and a.
  chints_float8 rg0 = __builtin_shufflevector(r, g, 0, 8, 1, 9, 4, 12, 5, 13);
  chints_float8 rg1 = __builtin_shufflevector(r, g, 2, 10, 3, 11, 6, 14, 7, 15);
  chints_float8 ba0 = __builtin_shufflevector(b, a, 0, 8, 1, 9, 4, 12, 5, 13);
  chints_float8 ba1 = __builtin_shufflevector(b, a, 2, 10, 3, 11, 6, 14, 7, 15);
  // Pixels 0 | 4, 1 | 5, 2 | 6, 3 | 7.
  chints_float8 p04 = __builtin_shufflevector(rg0, ba0, 0, 1, 8, 9, 4, 5, 12, 13);
  chints_float8 p15 = __builtin_shufflevector(rg0, ba0, 2, 3, 10, 11, 6, 7, 14, 15);
  chints_float8 p26 = __builtin_shufflevector(rg1, ba1, 0, 1, 8, 9, 4, 5, 12, 13);
  chints_float8 p37 = __builtin_shufflevector(rg1, ba1, 2, 3, 10, 11, 6, 7, 14, 15);
  chints_float8 out[4] = {
    __builtin_shufflevector(p04, p15, 0, 1, 2, 3, 8, 9, 10, 11),
    __builtin_shufflevector(p26, p37, 0, 1, 2, 3, 8, 9, 10, 11),
    __builtin_shufflevector(p04, p15, 4, 5, 6, 7, 12, 13, 14, 15),
    __builtin_shufflevector(p26, p37, 4, 5, 6, 7, 12, 13, 14, 15),
  };
  __builtin_memcpy(p, out, sizeof out);  // unaligned, and no type to alias
}

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
