#ifndef QGRAPH_TESTS_REF_GOLDEN_CASES_HPP
#define QGRAPH_TESTS_REF_GOLDEN_CASES_HPP

// The golden numerics table: every expected value derived by hand from ../shared/NUMERICS.md
// (the derivation is the comment on each row), never copied from qgraph's output.
// Used by test_numerics_golden.cpp (q10n.hpp directly) and test_numerics_golden_api.cpp
// (the same rows through the public API).

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace golden {

enum class qt { u8, s8, s32 };

inline int64_t qmin(qt t) { return t == qt::u8 ? 0 : (t == qt::s8 ? -128 : -2147483648LL); }
inline int64_t qmax(qt t) { return t == qt::u8 ? 255 : (t == qt::s8 ? 127 : 2147483647LL); }

constexpr int64_t i32max = 2147483647LL;
constexpr int64_t i32min = -2147483648LL;

inline float inf() { return std::numeric_limits<float>::infinity(); }
inline float nan() { return std::numeric_limits<float>::quiet_NaN(); }
/// 2^e as a float (exact, subnormals included).
inline float p2(int e) { return std::ldexp(1.f, e); }

/// y = saturate(rne(x / s) + zp) into `type`.
struct qcase {
    float x;
    float s;
    int64_t zp;
    qt type;
    int64_t y;
    const char *why;
};

inline const std::vector<qcase> &quantize_cases() {
    static const std::vector<qcase> cases = {
            // --- ties to even (x/s exactly k + 0.5) ---
            {0.5f, 1.f, 0, qt::s8, 0, "0.5 is a tie: even neighbour 0"},
            {1.5f, 1.f, 0, qt::s8, 2, "1.5 tie: even neighbour 2"},
            {2.5f, 1.f, 0, qt::s8, 2, "2.5 tie: even neighbour 2 (not 3)"},
            {3.5f, 1.f, 0, qt::s8, 4, "3.5 tie: even neighbour 4"},
            {-0.5f, 1.f, 0, qt::s8, 0, "-0.5 tie: -0, stored as 0"},
            {-1.5f, 1.f, 0, qt::s8, -2, "-1.5 tie: even neighbour -2"},
            {-2.5f, 1.f, 0, qt::s8, -2, "-2.5 tie: even neighbour -2"},
            {0.49999997f, 1.f, 0, qt::s8, 0, "0.5 - 2^-25 is below the tie: 0"},
            {0.50000006f, 1.f, 0, qt::s8, 1, "0.5 + 2^-24 is above the tie: 1"},
            {1.f, 2.f, 0, qt::u8, 0, "1/2 = 0.5 exactly: tie -> 0"},
            {3.f, 2.f, 0, qt::u8, 2, "3/2 = 1.5: tie -> 2"},
            {5.f, 2.f, 0, qt::u8, 2, "5/2 = 2.5: tie -> 2"},
            // --- rounding happens before zp is added (oneDNN's rne(x/s + zp) differs) ---
            {0.5f, 1.f, 1, qt::u8, 1, "rne(0.5)=0, +1 = 1 (oneDNN: rne(1.5)=2)"},
            {1.f, 2.f, 1, qt::u8, 1, "1/2=0.5 -> 0, +1 = 1 (oneDNN: 2)"},
            {2.5f, 1.f, 3, qt::u8, 5, "rne(2.5)=2, +3 = 5 (oneDNN: rne(5.5)=6)"},
            {-0.5f, 1.f, 1, qt::u8, 1, "rne(-0.5)=0, +1 = 1 (oneDNN: rne(0.5)=0)"},
            {0.5f, 1.f, 101, qt::u8, 101, "rne(0.5)=0, +101 = 101 (oneDNN: 102)"},
            {1.5f, 1.f, -1, qt::s8, 1, "rne(1.5)=2, -1 = 1 (oneDNN: rne(0.5)=0)"},
            {-2.5f, 1.f, 5, qt::s8, 3, "rne(-2.5)=-2, +5 = 3 (oneDNN: rne(2.5)=2)"},
            // --- saturation to the 8-bit ranges ---
            {300.f, 1.f, 0, qt::u8, 255, "300 > 255"},
            {-1.f, 1.f, 0, qt::u8, 0, "-1 < 0"},
            {-0.75f, 1.f, 0, qt::u8, 0, "rne(-0.75) = -1 -> 0"},
            {200.f, 1.f, 100, qt::u8, 255, "200 + 100 = 300 -> 255"},
            {-50.f, 1.f, 100, qt::u8, 50, "-50 + 100 = 50"},
            {-150.f, 1.f, 100, qt::u8, 0, "-150 + 100 = -50 -> 0"},
            {254.5f, 1.f, 0, qt::u8, 254, "254.5 tie -> 254 (even), in range"},
            {255.5f, 1.f, 0, qt::u8, 255, "255.5 tie -> 256 (even) -> 255"},
            {127.5f, 1.f, 0, qt::s8, 127, "127.5 tie -> 128 -> 127"},
            {-128.5f, 1.f, 0, qt::s8, -128, "-128.5 tie -> -128 (even)"},
            {-129.f, 1.f, 0, qt::s8, -128, "-129 < -128"},
            {200.f, 1.f, 0, qt::s8, 127, "200 > 127"},
            {100.f, 1.f, 50, qt::s8, 127, "100 + 50 = 150 -> 127"},
            {-100.f, 1.f, -50, qt::s8, -128, "-100 - 50 = -150 -> -128"},
            // --- |x/s| >= 2^31: mathematical saturation, no int32 wrap ---
            {3e9f, 1.f, 0, qt::s32, i32max, "3e9 (exact in f32) > 2^31-1"},
            {-3e9f, 1.f, 0, qt::s32, i32min, "-3e9 < -2^31"},
            {2147483648.f, 1.f, 0, qt::s32, i32max, "2^31: an int32 cast would wrap to -2^31"},
            {-2147483648.f, 1.f, 0, qt::s32, i32min, "-2^31 is in range"},
            {2147483520.f, 1.f, 0, qt::s32, 2147483520LL, "largest f32 below 2^31 (2^31-128)"},
            {2147483520.f, 1.f, 200, qt::s32, i32max, "2^31 - 128 + 200 > 2^31 - 1"},
            {-2147483648.f, 1.f, -1, qt::s32, i32min, "-2^31 - 1 -> -2^31"},
            {1.5f, 1.f, i32max, qt::s32, i32max, "2 + (2^31-1) exceeds int32: saturates"},
            {1e30f, 1.f, 0, qt::s32, i32max, "1e30 far above the range"},
            {3e9f, 1.f, 0, qt::u8, 255, "3e9 -> 255"},
            {-3e9f, 1.f, 0, qt::u8, 0, "-3e9 -> 0"},
            {3e9f, 1.f, 0, qt::s8, 127, "3e9 -> 127"},
            {-3e9f, 1.f, 0, qt::s8, -128, "-3e9 -> -128"},
            {3e38f, 0.01f, 0, qt::u8, 255, "3e38 / 0.01 overflows f32 to +Inf -> 255"},
            {-3e38f, 0.01f, 0, qt::s8, -128, "-3e38 / 0.01 = -Inf -> -128"},
            // --- +-Inf: qmax / qmin whatever zp is ---
            {inf(), 1.f, 0, qt::u8, 255, "+Inf -> qmax"},
            {-inf(), 1.f, 0, qt::u8, 0, "-Inf -> qmin"},
            {inf(), 1.f, 0, qt::s8, 127, "+Inf -> qmax"},
            {-inf(), 1.f, 0, qt::s8, -128, "-Inf -> qmin"},
            {inf(), 1.f, 100, qt::u8, 255, "+Inf + 100 -> qmax"},
            {-inf(), 1.f, 100, qt::u8, 0, "-Inf + 100 -> qmin"},
            {inf(), 1.f, 0, qt::s32, i32max, "+Inf -> 2^31-1"},
            {-inf(), 1.f, 0, qt::s32, i32min, "-Inf -> -2^31"},
            {inf(), -1.f, 0, qt::s8, -128, "+Inf / -1 = -Inf -> qmin"},
            // --- NaN -> qmin for every zp ---
            {nan(), 1.f, 0, qt::u8, 0, "NaN -> qmin 0"},
            {nan(), 1.f, 100, qt::u8, 0, "NaN -> qmin 0, zp 100 ignored"},
            {nan(), 1.f, 255, qt::u8, 0, "NaN -> qmin 0, zp 255 ignored"},
            {-nan(), 1.f, 7, qt::u8, 0, "-NaN -> qmin 0"},
            {nan(), 1.f, 0, qt::s8, -128, "NaN -> qmin -128"},
            {nan(), 1.f, 50, qt::s8, -128, "NaN -> -128, zp 50 ignored"},
            {nan(), 1.f, 127, qt::s8, -128, "NaN -> -128, zp 127 ignored"},
            {nan(), 1.f, 0, qt::s32, i32min, "NaN -> -2^31"},
            {inf(), inf(), 0, qt::u8, 0, "Inf/Inf = NaN -> qmin"},
            {-inf(), inf(), 3, qt::s8, -128, "-Inf/Inf = NaN -> qmin"},
            // --- runtime scale 0: x/0 = +-Inf saturates, 0/0 = NaN -> qmin ---
            {1.f, 0.f, 0, qt::u8, 255, "1/0 = +Inf -> 255"},
            {-1.f, 0.f, 0, qt::u8, 0, "-1/0 = -Inf -> 0"},
            {1.f, 0.f, 0, qt::s8, 127, "1/0 = +Inf -> 127"},
            {-1.f, 0.f, 0, qt::s8, -128, "-1/0 = -Inf -> -128"},
            {0.f, 0.f, 0, qt::u8, 0, "0/0 = NaN -> 0"},
            {0.f, 0.f, 100, qt::u8, 0, "0/0 = NaN -> 0 even with zp 100"},
            {0.f, 0.f, 5, qt::s8, -128, "0/0 = NaN -> -128"},
            {-0.f, 0.f, 10, qt::u8, 0, "-0/0 = NaN -> 0"},
            {1.f, -0.f, 0, qt::s8, -128, "1/-0 = -Inf -> -128"},
            {p2(-149), 0.f, 0, qt::u8, 255, "denorm_min/0 = +Inf -> 255"},
            // --- negative scale flips the sign ---
            {3.f, -1.f, 0, qt::s8, -3, "3/-1 = -3"},
            {10.f, -2.f, 128, qt::u8, 123, "10/-2 = -5, +128 = 123"},
            {2.5f, -1.f, 0, qt::s8, -2, "2.5/-1 = -2.5 tie -> -2"},
            {-300.f, -1.f, 0, qt::u8, 255, "-300/-1 = 300 -> 255"},
            {3.f, -0.5f, 0, qt::s8, -6, "3/-0.5 = -6"},
            // --- NaN scale: x/NaN = NaN -> qmin ---
            {1.f, nan(), 0, qt::u8, 0, "1/NaN -> 0"},
            {1.f, nan(), 100, qt::u8, 0, "1/NaN -> 0 with zp 100"},
            {0.f, nan(), 0, qt::s8, -128, "0/NaN -> -128"},
            {inf(), nan(), 0, qt::s8, -128, "Inf/NaN -> -128"},
            // --- infinite scale: finite x/Inf = +-0 ---
            {1.f, inf(), 5, qt::u8, 5, "1/Inf = 0, +5"},
            {-1.f, inf(), 5, qt::u8, 5, "-1/Inf = -0, +5"},
            {1e38f, inf(), 0, qt::s8, 0, "1e38/Inf = 0"},
            // --- subnormal scales ---
            {3 * p2(-149), p2(-149), 0, qt::s8, 3, "3*2^-149 / 2^-149 = 3 exactly"},
            {1.f, p2(-149), 0, qt::u8, 255, "1 / 2^-149 = 2^149 overflows to +Inf -> 255"},
            {-1.f, p2(-149), 0, qt::s32, i32min, "-2^149 -> -Inf -> -2^31"},
            {p2(-140), p2(-149), 0, qt::s32, 512, "2^-140 / 2^-149 = 2^9"},
            {p2(-140), p2(-149), 0, qt::s8, 127, "2^9 = 512 -> 127"},
            {p2(-128), p2(-130), 0, qt::s8, 4, "2^-130 is subnormal: 2^-128/2^-130 = 4"},
            {3 * p2(-131), p2(-130), 0, qt::s8, 2, "1.5*2^-130 / 2^-130 = 1.5 tie -> 2"},
            // --- s32 zero points with 8-bit dst: the sum is exact, then saturated ---
            {0.f, 1.f, 1000, qt::u8, 255, "0 + 1000 -> 255"},
            {-900.f, 1.f, 1000, qt::u8, 100, "-900 + 1000 = 100 (zp is not clamped to 255 first)"},
            {-1200.f, 1.f, 1000, qt::u8, 0, "-1200 + 1000 = -200 -> 0"},
            {-1000.5f, 1.f, 1000, qt::u8, 0, "rne(-1000.5) = -1000 (even), +1000 = 0"},
            {-998.5f, 1.f, 1000, qt::u8, 2, "rne(-998.5) = -998 (even), +1000 = 2"},
            {0.f, 1.f, -1000, qt::s8, -128, "0 - 1000 -> -128"},
            {1050.f, 1.f, -1000, qt::s8, 50, "1050 - 1000 = 50 (zp is not clamped to -128 first)"},
            {1200.f, 1.f, -1000, qt::s8, 127, "1200 - 1000 = 200 -> 127"},
            {2147483648.f, 1.f, i32max, qt::s8, 127, "2^31 + 2^31-1 = 2^32-1: no wrap -> 127"},
            {-2147483648.f, 1.f, i32min, qt::s8, -128, "-2^31 - 2^31 = -2^32: no wrap -> -128"},
            {-2147483648.f, 1.f, i32max, qt::u8, 0, "-2^31 + 2^31-1 = -1 -> 0"},
            {2147483648.f, 1.f, i32min, qt::s8, 0, "2^31 - 2^31 = 0"},
    };
    return cases;
}

enum class it { u8, s8, s32 };

/// y = f32(x - zp) * s, x of type `type`.
struct dqcase {
    int64_t x;
    it type;
    int64_t zp;
    float s;
    float y;
    const char *why;
};

inline const std::vector<dqcase> &dequantize_cases() {
    static const std::vector<dqcase> cases = {
            {0, it::u8, 255, 0.5f, -127.5f, "f32(0 - 255) * 0.5 = -127.5"},
            {255, it::u8, 0, 0.5f, 127.5f, "255 * 0.5"},
            {128, it::u8, 128, 3.f, 0.f, "(128 - 128) * 3 = +0"},
            {-128, it::s8, 127, 1.f, -255.f, "-128 - 127 = -255"},
            {127, it::s8, -128, 0.25f, 63.75f, "(127 + 128) * 0.25 = 63.75"},
            {-128, it::s8, 0, -0.5f, 64.f, "negative scale: -128 * -0.5 = 64"},
            {2, it::s8, 0, -0.5f, -1.f, "2 * -0.5 = -1"},
            {16777217, it::s32, 0, 1.f, 16777216.f,
                    "2^24+1 is a tie between 2^24 and 2^24+2: even mantissa -> 2^24"},
            {16777219, it::s32, 0, 1.f, 16777220.f,
                    "2^24+3 ties 2^24+2 (odd mantissa) and 2^24+4 (even) -> 2^24+4"},
            {16777217, it::s32, 0, 3.f, 50331648.f,
                    "f32(x) = 2^24 first, *3 = 50331648 (exact 3x = 50331651 would give "
                    "50331652)"},
            {2147483647, it::s32, 0, 1.f, 2147483648.f, "f32(2^31 - 1) rounds to 2^31"},
            {-2147483648LL, it::s32, 0, 0.5f, -1073741824.f, "-2^31 * 0.5"},
            {-2147483648LL, it::s32, 1, 1.f, -2147483648.f,
                    "x - zp = -2^31 - 1 exactly (an int32 difference would wrap to +2^31-1); "
                    "f32 = -2^31"},
            {0, it::u8, 1000, 1.f, -1000.f, "s32 zp: 0 - 1000"},
            {255, it::u8, -1000, 0.5f, 627.5f, "s32 zp: (255 + 1000) * 0.5"},
            {1, it::u8, 16777217, 1.f, -16777216.f,
                    "x - zp = -2^24 exactly (f32(x) - f32(zp) would give -16777215)"},
            {5, it::u8, 0, 0.f, 0.f, "scale 0: 5 * 0 = +0"},
            {3, it::u8, 5, 0.f, -0.f, "scale 0: f32(-2) * 0 = -0 (sign kept)"},
            {1, it::u8, 0, nan(), nan(), "NaN scale -> NaN"},
            {1, it::u8, 1, inf(), nan(), "0 * Inf = NaN"},
            {2, it::u8, 0, inf(), inf(), "2 * Inf = Inf"},
            {-3, it::s8, 0, inf(), -inf(), "-3 * Inf = -Inf"},
            {255, it::u8, 0, 3e38f, inf(), "255 * 3e38 overflows to +Inf"},
            {1, it::u8, 0, p2(-149), p2(-149), "1 * denorm_min"},
            {-128, it::s8, 0, p2(-149), -p2(-142), "-2^7 * 2^-149 = -2^-142 (exact)"},
    };
    return cases;
}

/// DynamicQuantizeLinear: y_scale, y_zero_point and y for one input.
struct dqlcase {
    std::vector<float> x;
    float scale; ///< compared bitwise (NaN matches NaN)
    int64_t zp;
    std::vector<int64_t> y;
    const char *why;
};

inline const std::vector<dqlcase> &dql_cases() {
    // f32(5/255): 1/51 * 2^29 = 10526880.63 -> mantissa 10526881 (0xA0A0A1), exponent -6:
    // bits 0x3CA0A0A1, slightly above 1/51.
    static const float s5 = 5.f / 255.f;
    // f32(4/255): 2^31/255 = 8421504.50 -> 8421505 (0x808081) * 2^-29: bits 0x3C808081.
    static const float s4 = 4.f / 255.f;
    static const std::vector<dqlcase> cases = {
            // ONNX test_dynamicquantizelinear: lo -3, hi 2, scale 5/255; zp = rne(3/s) = 153
            // (3/s = 152.999995 rounds in f32 to 153.0). y = rne(x/s) + 153: 2/s = 102 -> 255;
            // -2.5/s = -127.499992 -> -127 -> 26; 1.34/s = 68.34 -> 221; 0.5/s = 25.4999991
            // which rounds in f32 to exactly 25.5 (half-ulp 9.5e-7 > 9.0e-7), a tie -> 26 -> 179.
            {{0.f, 2.f, -3.f, -2.5f, 1.34f, 0.5f}, s5, 153, {153, 255, 0, 26, 221, 179},
                    "ONNX example 1"},
            // ONNX test_dynamicquantizelinear_max_adjusted: lo -4, hi 0, scale 4/255;
            // zp: 4/s = 254.999985 -> 255. -1/s = -63.7499962 -> -64 -> 191; -2.1 -> -133.9 ->
            // 121; -1.3 -> -82.9 -> 172; -2.5 -> -159.4 -> 96; -3.34 -> -212.9 -> 42; -4 -> 0.
            {{-1.f, -2.1f, -1.3f, -2.5f, -3.34f, -4.f}, s4, 255, {191, 121, 172, 96, 42, 0},
                    "ONNX example 2 (max adjusted)"},
            // ONNX test_dynamicquantizelinear_min_adjusted: lo 0, hi 4, scale 4/255, zp 0;
            // y = rne(x * 63.75-ish): 1 -> 64, 2.1 -> 134, 1.3 -> 83, 2.5 -> 159, 3.34 -> 213,
            // 4 -> 255, 1.5 -> 96, 2.6 -> 166, 3.9 -> 249, 3 -> 191, 2.345 -> 149.
            {{1.f, 2.1f, 1.3f, 2.5f, 3.34f, 4.f, 1.5f, 2.6f, 3.9f, 4.f, 3.f, 2.345f}, s4, 0,
                    {64, 134, 83, 159, 213, 255, 96, 166, 249, 255, 191, 149},
                    "ONNX example 3 (min adjusted)"},
            {{0.f, 0.f, 0.f}, 1.f, 0, {0, 0, 0}, "all zero: scale 1, zp 0"},
            {{-0.f, 0.f}, 1.f, 0, {0, 0}, "-0 and 0: hi == lo == 0"},
            {{}, 1.f, 0, {}, "empty: scale 1, zp 0"},
            {{1.f, nan(), -1.f}, nan(), 255, {0, 0, 0}, "NaN in the middle: NaN, 255, all 0"},
            {{nan(), 5.f}, nan(), 255, {0, 0}, "NaN first"},
            {{5.f, -3.f, nan()}, nan(), 255, {0, 0, 0}, "NaN last"},
            {{inf(), nan()}, nan(), 255, {0, 0}, "NaN wins over Inf"},
            // hi = +Inf: scale = Inf/255 = Inf; zp = 0 - (-2/Inf) = 0 - (-0) = 0;
            // y: finite/Inf = 0, Inf/Inf = NaN -> 0.
            {{1.f, inf(), -2.f}, inf(), 0, {0, 0, 0}, "+Inf: scale Inf, zp 0, y 0"},
            // lo = -Inf: scale Inf; zp = 0 - (-Inf/Inf = NaN) -> 255; finite/Inf = 0 -> 255;
            // -Inf/Inf = NaN -> 0.
            {{1.f, -inf(), 2.f}, inf(), 255, {255, 0, 255}, "-Inf: scale Inf, zp 255"},
            // Both: scale Inf, zp 255 (from lo = -Inf), y 0 at +-Inf, 255 elsewhere.
            {{inf(), -inf(), 1.f, 0.f}, inf(), 255, {0, 0, 255, 255}, "+Inf and -Inf"},
            // hi - lo = 3e38 - (-3e38) overflows to +Inf: scale Inf; zp = 0 - (-3e38/Inf) =
            // 0 - (-0) = 0; every finite x/Inf is +-0: y all 0.
            {{3e38f, -3e38f, 1.f}, inf(), 0, {0, 0, 0}, "finite range whose width overflows"},
            // hi = 2^-140 (subnormal): 2^-140/255 = 2.0078 * 2^-149 -> 2^-148 (a multiple of
            // 2^-149); zp = 0 - 0/s = 0; 2^-140 / 2^-148 = 256 -> 255.
            {{p2(-140), 0.f}, p2(-148), 0, {255, 0}, "subnormal range, scale rounds down"},
            // lo = -2^-149: 2^-149/255 underflows to +0; zp = 0 - (-2^-149/0) = +Inf -> 255;
            // y: -2^-149/0 = -Inf -> 0 (saturated after +255), 0/0 = NaN -> 0.
            {{-p2(-149), 0.f}, 0.f, 255, {0, 0}, "subnormal range, scale underflows to 0"},
            // hi = 2^-149: scale 0; zp = 0 - 0/0 = NaN -> 255 (the NaN zero point of the
            // -Inf rule); y: 2^-149/0 = +Inf -> 255, 0/0 = NaN -> 0.
            {{p2(-149), 0.f}, 0.f, 255, {255, 0}, "subnormal range, scale 0, NaN zp"},
            // scale = f32(3/255) = 12632257 * 2^-30 (just above 1/85); 3/s = 254.999995 ->
            // f32 255.0 -> 255.
            {{3.f}, 3.f / 255.f, 0, {255}, "one positive value"},
            // lo = -3: zp = 3/s -> 255; -3/s -> -255 -> 0.
            {{-3.f}, 3.f / 255.f, 255, {0}, "one negative value"},
    };
    return cases;
}

} // namespace golden

#endif
