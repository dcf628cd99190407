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

// `v` held to lo...hi lane by lane as x86's `maxps` then `minps`: NaN becomes lo, as Swift's
// `clamp`; a -0 against lo = +0 becomes +0 (a zero either way, and the YUV conversion adds it to
// positive terms before rounding). Two instructions where Swift's compares and selects took
// three or four (FrameConverter.swift's `clamp8`).
typedef float chints_v8sf __attribute__((vector_size(32)));
typedef float chints_v4sf __attribute__((vector_size(16)));
static inline chints_float8 chints_clamp8(chints_float8 v, chints_float8 lo, chints_float8 hi) {
#ifdef __AVX__
  return (chints_float8)__builtin_ia32_minps256(__builtin_ia32_maxps256((chints_v8sf)v, (chints_v8sf)lo),
                                                (chints_v8sf)hi);
#else
  chints_v4sf v0 = __builtin_shufflevector((chints_v8sf)v, (chints_v8sf)v, 0, 1, 2, 3);
  chints_v4sf v1 = __builtin_shufflevector((chints_v8sf)v, (chints_v8sf)v, 4, 5, 6, 7);
  chints_v4sf l0 = __builtin_shufflevector((chints_v8sf)lo, (chints_v8sf)lo, 0, 1, 2, 3);
  chints_v4sf l1 = __builtin_shufflevector((chints_v8sf)lo, (chints_v8sf)lo, 4, 5, 6, 7);
  chints_v4sf h0 = __builtin_shufflevector((chints_v8sf)hi, (chints_v8sf)hi, 0, 1, 2, 3);
  chints_v4sf h1 = __builtin_shufflevector((chints_v8sf)hi, (chints_v8sf)hi, 4, 5, 6, 7);
  chints_v4sf c0 = __builtin_ia32_minps(__builtin_ia32_maxps(v0, l0), h0);
  chints_v4sf c1 = __builtin_ia32_minps(__builtin_ia32_maxps(v1, l1), h1);
  return (chints_float8)__builtin_shufflevector(c0, c1, 0, 1, 2, 3, 4, 5, 6, 7);
#endif
}

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

// Eight RGBA pixels of four floats at `p` loaded as a vector a channel into `out` (r, g, b, a,
// eight floats each; a local the optimizer keeps in registers once this is inlined): the inverse of
// `chints_store_pixels8`, four two-pixel loads (pixels i and i + 4 in the two halves) and eight
// shuffles, where Swift's lane by lane gathers built each channel from inserts (the YUV
// conversion's loads, and Raster's fused discs reading a row: FrameConverter.swift,
// GraphicsContext+Discs.swift).
static inline void chints_load_pixels8(const float *p, float *out) {
  typedef float float4 __attribute__((ext_vector_type(4)));
  float4 q[8];
  __builtin_memcpy(q, p, sizeof q);  // unaligned, and no type to alias
  // Pixels 0 | 4, 1 | 5, 2 | 6, 3 | 7.
  chints_float8 m0 = __builtin_shufflevector(q[0], q[4], 0, 1, 2, 3, 4, 5, 6, 7);
  chints_float8 m1 = __builtin_shufflevector(q[1], q[5], 0, 1, 2, 3, 4, 5, 6, 7);
  chints_float8 m2 = __builtin_shufflevector(q[2], q[6], 0, 1, 2, 3, 4, 5, 6, 7);
  chints_float8 m3 = __builtin_shufflevector(q[3], q[7], 0, 1, 2, 3, 4, 5, 6, 7);
  // r0 r1 g0 g1 | r4 r5 g4 g5, b0 b1 a0 a1 | b4 b5 a4 a5, the same of pixels 2, 3 and 6, 7.
  chints_float8 t0 = __builtin_shufflevector(m0, m1, 0, 8, 1, 9, 4, 12, 5, 13);
  chints_float8 t1 = __builtin_shufflevector(m0, m1, 2, 10, 3, 11, 6, 14, 7, 15);
  chints_float8 t2 = __builtin_shufflevector(m2, m3, 0, 8, 1, 9, 4, 12, 5, 13);
  chints_float8 t3 = __builtin_shufflevector(m2, m3, 2, 10, 3, 11, 6, 14, 7, 15);
  chints_float8 channels[4] = {
    __builtin_shufflevector(t0, t2, 0, 1, 8, 9, 4, 5, 12, 13),
    __builtin_shufflevector(t0, t2, 2, 3, 10, 11, 6, 7, 14, 15),
    __builtin_shufflevector(t1, t3, 0, 1, 8, 9, 4, 5, 12, 13),
    __builtin_shufflevector(t1, t3, 2, 3, 10, 11, 6, 7, 14, 15),
  };
#ifdef __AVX__
  // Opaque to the optimizer (an empty statement that may change them): otherwise it traces each
  // lane back to its load and rebuilds channels from scalar loads, inserts and blends, the code
  // this was written to replace.
  __asm__("" : "+x"(channels[0]), "+x"(channels[1]), "+x"(channels[2]), "+x"(channels[3]));
#endif
  __builtin_memcpy(out, channels, sizeof channels);
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
