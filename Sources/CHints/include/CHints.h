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
  // Two halves of four lanes (SSE's `maxps` and `minps`: the same lane semantics).
  chints_float8 out;
  for (int h = 0; h < 2; h++) {
    chints_v4sf x, l, u;
    __builtin_memcpy(&x, (const float *)&v + 4 * h, sizeof x);
    __builtin_memcpy(&l, (const float *)&lo + 4 * h, sizeof l);
    __builtin_memcpy(&u, (const float *)&hi + 4 * h, sizeof u);
    chints_v4sf c = __builtin_ia32_minps(__builtin_ia32_maxps(x, l), u);
    __builtin_memcpy((float *)&out + 4 * h, &c, sizeof c);
  }
  return out;
#endif
}

// Two pixels held as eight lanes (r, g, b, a | r, g, b, a): each pixel's alpha in all four of
// its lanes, one `vpermilps` (Raster's blends of two pixels a vector: BlendMode.swift), where
// Swift's lane reads and initializer built the vector from inserts.
static inline chints_float8 chints_alpha_pairs8(chints_float8 v) {
  return __builtin_shufflevector(v, v, 3, 3, 3, 3, 7, 7, 7, 7);
}

// `v` in the lanes where `a` > 0, +0 in the others (a NaN `a` among them): a compare and an and.
// Swift's `replacing(with:where:)` on eight lanes went lane by lane and split the loop around it
// into four-lane halves (Raster's color matrix, ColorMatrix.swift).
typedef int chints_int8v __attribute__((ext_vector_type(8)));
static inline chints_float8 chints_where_positive8(chints_float8 v, chints_float8 a) {
  chints_int8v keep = a > 0;
  chints_int8v bits;
  __builtin_memcpy(&bits, &v, sizeof bits);
  bits &= keep;
  chints_float8 out;
  __builtin_memcpy(&out, &bits, sizeof out);
  return out;
}

// The low byte of each of eight lanes' bit patterns, stored as eight bytes at `out`: a sample
// code of a value clamped to 0...255 and offset by 2^23 (`byteCodes8` in FrameConverter.swift).
// Swift's SIMD8<UInt8>(truncatingIfNeeded:) was a call a vector where it was not inlined.
typedef unsigned int chints_uint8v __attribute__((ext_vector_type(8)));
typedef unsigned char chints_uchar8 __attribute__((ext_vector_type(8)));
static inline chints_uint8v chints_bits8(chints_float8 v) {
  chints_uint8v bits;
  __builtin_memcpy(&bits, &v, sizeof bits);
  return bits;
}
static inline void chints_store_low_bytes8(unsigned char *out, chints_float8 v) {
  chints_uchar8 bytes = __builtin_convertvector(chints_bits8(v), chints_uchar8);
  __builtin_memcpy(out, &bytes, sizeof bytes);
}

// The low 16 bits of each of eight lanes' bit patterns, stored as eight little-endian 16-bit
// samples at `out`: a 10-bit code of a value clamped to 0...1023 and offset by 2^23 (the 4:4:4
// conversion's rows, FrameConverter.swift's `convert444Chunks`).
typedef unsigned short chints_ushort8 __attribute__((ext_vector_type(8)));
static inline void chints_store_low_halves8(unsigned short *out, chints_float8 v) {
  chints_ushort8 halves = __builtin_convertvector(chints_bits8(v), chints_ushort8);
  __builtin_memcpy(out, &halves, sizeof halves);
}

// The low bytes of four sets of eight lanes (codes offset by 2^23, as `chints_store_low_bytes8`),
// stored interleaved as eight four-byte pixels at `out`: c0[0], c1[0], c2[0], c3[0], c0[1], ...
// (RGBA and BGRA rows: FrameConverter.swift's `convertRGBChunks`).
typedef unsigned char chints_uchar16 __attribute__((ext_vector_type(16)));
typedef unsigned char chints_uchar32 __attribute__((ext_vector_type(32)));
static inline chints_uchar8 chints_low_bytes8(chints_float8 v) {
  return __builtin_convertvector(chints_bits8(v), chints_uchar8);
}
static inline void chints_store_interleaved4(
  unsigned char *out, chints_float8 c0, chints_float8 c1, chints_float8 c2, chints_float8 c3) {
  chints_uchar8 b0 = chints_low_bytes8(c0), b1 = chints_low_bytes8(c1);
  chints_uchar8 b2 = chints_low_bytes8(c2), b3 = chints_low_bytes8(c3);
  chints_uchar16 b01 = __builtin_shufflevector(b0, b1, 0, 8, 1, 9, 2, 10, 3, 11, 4, 12, 5, 13, 6, 14, 7, 15);
  chints_uchar16 b23 = __builtin_shufflevector(b2, b3, 0, 8, 1, 9, 2, 10, 3, 11, 4, 12, 5, 13, 6, 14, 7, 15);
  chints_uchar32 all = __builtin_shufflevector(
    b01, b23, 0, 1, 16, 17, 2, 3, 18, 19, 4, 5, 20, 21, 6, 7, 22, 23, 8, 9, 24, 25, 10, 11, 26, 27, 12, 13, 28,
    29, 14, 15, 30, 31);
  __builtin_memcpy(out, &all, sizeof all);
}

// `chints_store_low_bytes8`, lanes 0-3 at `low` and lanes 4-7 at `high` (a Cb and a Cr row).
static inline void chints_store_low_bytes4x2(unsigned char *low, unsigned char *high, chints_float8 v) {
  chints_uint8v bits;
  __builtin_memcpy(&bits, &v, sizeof bits);
  chints_uchar8 bytes = __builtin_convertvector(bits, chints_uchar8);
  __builtin_memcpy(low, &bytes, 4);
  __builtin_memcpy(high, (const unsigned char *)&bytes + 4, 4);
}

// The shuffles both 4x8 transposes share: in each 128-bit half, lanes 0-3 of the four outputs
// are lane 0, 1, 2 and 3 of a, b, c and d in turn (a 4x4 transpose a half), by two rounds of
// interleaves.
static inline void chints_transpose_halves(chints_float8 a, chints_float8 b, chints_float8 c, chints_float8 d,
                                           chints_float8 out[4]) {
  chints_float8 ab0 = __builtin_shufflevector(a, b, 0, 8, 1, 9, 4, 12, 5, 13);
  chints_float8 ab1 = __builtin_shufflevector(a, b, 2, 10, 3, 11, 6, 14, 7, 15);
  chints_float8 cd0 = __builtin_shufflevector(c, d, 0, 8, 1, 9, 4, 12, 5, 13);
  chints_float8 cd1 = __builtin_shufflevector(c, d, 2, 10, 3, 11, 6, 14, 7, 15);
  out[0] = __builtin_shufflevector(ab0, cd0, 0, 1, 8, 9, 4, 5, 12, 13);
  out[1] = __builtin_shufflevector(ab0, cd0, 2, 3, 10, 11, 6, 7, 14, 15);
  out[2] = __builtin_shufflevector(ab1, cd1, 0, 1, 8, 9, 4, 5, 12, 13);
  out[3] = __builtin_shufflevector(ab1, cd1, 2, 3, 10, 11, 6, 7, 14, 15);
}

// Eight pixels held a vector a channel (r, g, b, a) written as eight RGBA pixels of four floats
// at `p`: the 4x8 transpose in twelve shuffles (four unpacks, four shuffles, four half swaps) and
// four stores, where Swift's lane by lane stores built each pixel from inserts (Raster's fused
// discs write each chunk so: GraphicsContext+Discs.swift).
static inline void chints_store_pixels8(float *p, chints_float8 r, chints_float8 g, chints_float8 b,
                                        chints_float8 a) {
  // Pixels 0 | 4, 1 | 5, 2 | 6, 3 | 7.
  chints_float8 q[4];
  chints_transpose_halves(r, g, b, a, q);
  chints_float8 p04 = q[0], p15 = q[1], p26 = q[2], p37 = q[3];
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
// `chints_store_pixels8`, four two-pixel loads (pixels i and i + 4 in the two halves) and the
// eight shuffles of `chints_transpose_halves`, where Swift's lane by lane gathers built each
// channel from inserts (the YUV conversion's loads, and Raster's fused discs reading a row:
// FrameConverter.swift, GraphicsContext+Discs.swift).
static inline void chints_load_pixels8(const float *p, float *out) {
  typedef float float4 __attribute__((ext_vector_type(4)));
  float4 q[8];
  __builtin_memcpy(q, p, sizeof q);  // unaligned, and no type to alias
  // Pixels 0 | 4, 1 | 5, 2 | 6, 3 | 7.
  chints_float8 m0 = __builtin_shufflevector(q[0], q[4], 0, 1, 2, 3, 4, 5, 6, 7);
  chints_float8 m1 = __builtin_shufflevector(q[1], q[5], 0, 1, 2, 3, 4, 5, 6, 7);
  chints_float8 m2 = __builtin_shufflevector(q[2], q[6], 0, 1, 2, 3, 4, 5, 6, 7);
  chints_float8 m3 = __builtin_shufflevector(q[3], q[7], 0, 1, 2, 3, 4, 5, 6, 7);
  chints_float8 channels[4];
  chints_transpose_halves(m0, m1, m2, m3, channels);
#ifdef __AVX__
  // Opaque to the optimizer (an empty statement that may change them): otherwise it traces each
  // lane back to its load and rebuilds channels from scalar loads, inserts and blends, the code
  // this was written to replace.
  __asm__("" : "+x"(channels[0]), "+x"(channels[1]), "+x"(channels[2]), "+x"(channels[3]));
#endif
  __builtin_memcpy(out, channels, sizeof channels);
}

// Each even lane twice (0, 0, 2, 2, 4, 4, 6, 6; `vmovsldup`) and each odd lane twice (1, 1, 3, 3,
// ...; `vmovshdup`): the two columns of each 2x2 block in both of its lanes, for the YUV
// conversion's per-block sums with alpha kept (FrameConverter.swift's `alphaBlocks8`).
static inline chints_float8 chints_dup_even8(chints_float8 v) {
  return __builtin_shufflevector(v, v, 0, 0, 2, 2, 4, 4, 6, 6);
}
static inline chints_float8 chints_dup_odd8(chints_float8 v) {
  return __builtin_shufflevector(v, v, 1, 1, 3, 3, 5, 5, 7, 7);
}

// `then` in the lanes where `a <= b`, `otherwise` in the others (a NaN among them): a compare and
// a blend, where Swift's `replacing(with:where:)` on eight lanes went lane by lane.
static inline chints_float8 chints_where_at_most8(
  chints_float8 a, chints_float8 b, chints_float8 then, chints_float8 otherwise) {
  chints_int8v pick = a <= b;
  chints_int8v t, o;
  __builtin_memcpy(&t, &then, sizeof t);
  __builtin_memcpy(&o, &otherwise, sizeof o);
  chints_int8v bits = (t & pick) | (o & ~pick);
  chints_float8 out;
  __builtin_memcpy(&out, &bits, sizeof out);
  return out;
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
