#include "swigflow/kernels/gemm/int8_pack.h"

#include <emmintrin.h>  // SSE2, part of x86-64 itself: packing needs no run-time dispatch

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "swigflow/kernels/gemm/scratch.h"

namespace swigflow {
namespace kernels {
namespace int8 {

int64_t BlockK(const Int8Blocking& blocking, int64_t align) {
  const int group = blocking.kernel.k_group;
  if (blocking.kernel.rows_kernel == nullptr || align <= 1 || align % group != 0) {
    return blocking.kc;
  }
  return std::max(align, blocking.kc / align * align);
}

uint8_t* ScratchBytes(int which, size_t n) { return gemm::ThreadScratch<uint8_t, 3>(which, n, 64); }

void PackRowBytes(const Int8KernelInfo& kernel, const uint8_t* a, int64_t lda, int64_t mc,
                  int64_t kc, uint8_t* dst) {
  const int mr = kernel.mr, group = kernel.k_group;
  const int64_t groups = (kc + group - 1) / group, full = kc / group;
  for (int64_t ir = 0; ir < mc; ir += mr, dst += groups * mr * group) {
    for (int r = 0; r < mr; ++r) {
      uint8_t* d = dst + r * group;
      if (ir + r >= mc) {
        for (int64_t g = 0; g < groups; ++g) std::memset(d + g * mr * group, 0, group);
        continue;
      }
      const uint8_t* src = a + (ir + r) * lda;
      if (group == 4 && r + 4 <= mr && ir + r + 4 <= mc) {
        // Four rows at once, four groups at a time: a 4 x 4 transpose of 32-bit words turns
        // 16 bytes of each row into each group's 16 bytes of the four rows (a quarter of the
        // stores of one word at a time).
        int64_t g = 0;
        for (; g + 4 <= full; g += 4) {
          const __m128i r0 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + g * 4));
          const __m128i r1 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + lda + g * 4));
          const __m128i r2 =
              _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + 2 * lda + g * 4));
          const __m128i r3 =
              _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + 3 * lda + g * 4));
          const __m128i t0 = _mm_unpacklo_epi32(r0, r1), t1 = _mm_unpackhi_epi32(r0, r1);
          const __m128i t2 = _mm_unpacklo_epi32(r2, r3), t3 = _mm_unpackhi_epi32(r2, r3);
          uint8_t* out = d + g * mr * 4;
          _mm_storeu_si128(reinterpret_cast<__m128i*>(out), _mm_unpacklo_epi64(t0, t2));
          _mm_storeu_si128(reinterpret_cast<__m128i*>(out + mr * 4), _mm_unpackhi_epi64(t0, t2));
          _mm_storeu_si128(reinterpret_cast<__m128i*>(out + 2 * mr * 4),
                           _mm_unpacklo_epi64(t1, t3));
          _mm_storeu_si128(reinterpret_cast<__m128i*>(out + 3 * mr * 4),
                           _mm_unpackhi_epi64(t1, t3));
        }
        for (; g < full; ++g) {
          for (int q = 0; q < 4; ++q) std::memcpy(d + g * mr * 4 + q * 4, src + q * lda + g * 4, 4);
        }
        if (full < groups) {
          for (int q = 0; q < 4; ++q) {
            uint8_t* last = d + full * mr * 4 + q * 4;
            std::memset(last, 0, 4);
            std::memcpy(last, src + q * lda + full * 4, static_cast<size_t>(kc - full * 4));
          }
        }
        r += 3;  // the loop's ++r moves past the four
        continue;
      }
      if (group == 4) {  // a constant size: one 32-bit move a group, not a call to memcpy
        for (int64_t g = 0; g < full; ++g) std::memcpy(d + g * mr * 4, src + g * 4, 4);
      } else {
        for (int64_t g = 0; g < full; ++g) std::memcpy(d + g * mr * group, src + g * group, group);
      }
      if (full < groups) {
        uint8_t* last = d + full * mr * group;
        std::memset(last, 0, group);
        std::memcpy(last, src + full * group, static_cast<size_t>(kc - full * group));
      }
    }
  }
}

namespace {

// PackB for byte kernels with groups of 4: whole groups as 32-bit words, flipping uint8 to int8
// as xor 0x80 on every byte.
void PackByteGroupsOf4(const Int8KernelInfo& kernel, const Int8Right& b, int64_t p0, int64_t j0,
                       int64_t kc, int64_t nc, uint8_t* dst) {
  const int nr = kernel.nr;
  const int64_t groups = GroupsOf(kernel, kc);
  const auto* data = static_cast<const uint8_t*>(b.data);
  const uint32_t flip_bits = b.unsigned_ ? 0x80808080u : 0;
  const int64_t full = kc / 4;
  for (int64_t jr = 0; jr < nc; jr += nr, dst += groups * nr * 4) {
    const int cols = static_cast<int>(std::min<int64_t>(nr, nc - jr));
    for (int64_t g = 0; g < groups; ++g) {
      uint8_t* d = dst + g * nr * 4;
      const int64_t p = p0 + g * 4;
      int j = 0;
      if (g < full && !b.trans) {  // 16 columns at a time: 4 rows' bytes interleaved (SSE2)
        const __m128i flip_vector = _mm_set1_epi32(static_cast<int32_t>(flip_bits));
        for (; j + 16 <= cols; j += 16) {
          const uint8_t* src = data + p * b.ld + j0 + jr + j;
          const auto row = [&](int t) {
            return _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + t * b.ld));
          };
          const __m128i r0 = row(0), r1 = row(1), r2 = row(2), r3 = row(3);
          const __m128i lo01 = _mm_unpacklo_epi8(r0, r1), lo23 = _mm_unpacklo_epi8(r2, r3);
          const __m128i hi01 = _mm_unpackhi_epi8(r0, r1), hi23 = _mm_unpackhi_epi8(r2, r3);
          const __m128i words[4] = {_mm_unpacklo_epi16(lo01, lo23), _mm_unpackhi_epi16(lo01, lo23),
                                    _mm_unpacklo_epi16(hi01, hi23), _mm_unpackhi_epi16(hi01, hi23)};
          for (int q = 0; q < 4; ++q) {
            _mm_storeu_si128(reinterpret_cast<__m128i*>(d + (j + 4 * q) * 4),
                             _mm_xor_si128(words[q], flip_vector));
          }
        }
      }
      for (; j < cols; ++j) {
        const int64_t col = j0 + jr + j;
        uint32_t word = 0;
        if (g < full && b.trans) {
          std::memcpy(&word, data + col * b.ld + p, 4);
        } else if (g < full) {
          const uint8_t* src = data + p * b.ld + col;
          word = src[0] | uint32_t{src[b.ld]} << 8 | uint32_t{src[2 * b.ld]} << 16 |
                 uint32_t{src[3 * b.ld]} << 24;
        } else {
          for (int64_t t = 0; p + t < p0 + kc; ++t) {
            const uint8_t v = b.trans ? data[col * b.ld + p + t] : data[(p + t) * b.ld + col];
            word |= uint32_t{v} << (8 * t);
          }
        }
        // Steps past K stay zero after the flip too.
        const int64_t valid = std::min<int64_t>(4, p0 + kc - p);
        const uint32_t mask = valid >= 4 ? 0xffffffffu : (1u << (8 * valid)) - 1;
        word = (word ^ flip_bits) & mask;
        std::memcpy(d + j * 4, &word, 4);
      }
      if (cols < nr) std::memset(d + cols * 4, 0, static_cast<size_t>(nr - cols) * 4);
    }
  }
}

}  // namespace

void PackB(const Int8KernelInfo& kernel, const Int8Right& b, int64_t p0, int64_t j0, int64_t kc,
           int64_t nc, uint8_t* dst) {
  const int nr = kernel.nr, group = kernel.k_group;
  const int64_t groups = GroupsOf(kernel, kc);
  const int64_t group_bytes = group * ElementBytes(kernel);
  const auto* data = static_cast<const uint8_t*>(b.data);
  const int flip = b.unsigned_ ? 128 : 0;
  if (kernel.element == Int8Element::kBytes && group == 4) {
    return PackByteGroupsOf4(kernel, b, p0, j0, kc, nc, dst);
  }
  for (int64_t jr = 0; jr < nc; jr += nr) {
    for (int64_t g = 0; g < groups; ++g) {
      for (int j = 0; j < nr; ++j) {
        int values[4] = {0, 0, 0, 0};
        if (jr + j < nc) {
          const int64_t col = j0 + jr + j;
          for (int t = 0; t < group; ++t) {
            const int64_t p = p0 + g * group + t;
            if (p >= p0 + kc) break;
            const uint8_t raw = b.trans ? data[col * b.ld + p] : data[p * b.ld + col];
            values[t] = b.unsigned_ ? raw - flip : static_cast<int8_t>(raw);
          }
        }
        PutGroup(kernel, values, dst + (g * nr + j) * group_bytes);
      }
    }
    dst += groups * nr * group_bytes;
  }
}

}  // namespace int8
}  // namespace kernels
}  // namespace swigflow
