#include "common/data_types.hpp"

#include "common/half_types.hpp"
#include "qgraph/data_type_table.hpp"

namespace qgraph {
namespace impl {

q_range range_of(data_type dt) {
    const data_type_facts &f = facts_of(dt);
    if (f.cls != type_class::integer) return {0, 0};
    return {f.lo, f.hi};
}

bool is_quantized_integer(data_type dt) {
    const data_type_facts &f = facts_of(dt);
    return f.cls == type_class::integer && f.bits <= 32;
}

bool is_wide_float(data_type dt) {
    return dt == data_type::f32 || dt == data_type::bf16 || dt == data_type::f16;
}

uint32_t load_code(const void *base, data_type dt, int64_t i) {
    const int bits = facts_of(dt).bits;
    const elem_pos at = position_of(i, bits);
    const auto *p = static_cast<const uint8_t *>(base) + at.byte;
    switch (bits) {
        case 32: return load_elem<uint32_t>(p, 0);
        case 16: return load_elem<uint16_t>(p, 0);
        case 8: return *p;
        default: return (*p >> at.shift) & ((1u << bits) - 1);
    }
}

void store_code(void *base, data_type dt, int64_t i, uint32_t code) {
    const int bits = facts_of(dt).bits;
    const elem_pos at = position_of(i, bits);
    auto *p = static_cast<uint8_t *>(base) + at.byte;
    switch (bits) {
        case 32: return store_elem<uint32_t>(p, 0, code);
        case 16: return store_elem<uint16_t>(p, 0, static_cast<uint16_t>(code));
        case 8: *p = static_cast<uint8_t>(code); return;
        default: {
            const uint32_t mask = ((1u << bits) - 1) << at.shift;
            *p = static_cast<uint8_t>((*p & ~mask) | ((code << at.shift) & mask));
        }
    }
}

void clear_tail_bits(void *base, data_type dt, int64_t span) {
    const int bits = facts_of(dt).bits;
    if (bits >= 8 || span <= 0) return;
    const elem_pos end = position_of(span, bits);
    if (end.shift == 0) return;
    auto *p = static_cast<uint8_t *>(base) + end.byte;
    *p = static_cast<uint8_t>(*p & ((1u << end.shift) - 1));
}

int64_t load_int(const void *base, data_type dt, int64_t i) {
    const data_type_facts &f = facts_of(dt);
    const uint32_t code = load_code(base, dt, i);
    if (!f.is_signed || f.bits >= 64) return code;
    const uint32_t sign = 1u << (f.bits - 1);
    return static_cast<int64_t>(code ^ sign) - static_cast<int64_t>(sign);
}

float load_float(const void *base, data_type dt, int64_t i) {
    switch (dt) {
        case data_type::bf16: return bf16_to_f32(load_elem<uint16_t>(base, i));
        case data_type::f16: return f16_to_f32(load_elem<uint16_t>(base, i));
        case data_type::e8m0: return e8m0_to_f32(load_elem<uint8_t>(base, i));
        default: return load_elem<float>(base, i);
    }
}

void store_float(void *base, data_type dt, int64_t i, float v) {
    switch (dt) {
        case data_type::bf16: return store_elem<uint16_t>(base, i, f32_to_bf16(v));
        case data_type::f16: return store_elem<uint16_t>(base, i, f32_to_f16(v));
        default: return store_elem<float>(base, i, v);
    }
}

size_t size_of(data_type dt) {
    const size_t bits = data_type_bits(dt);
    return bits % 8 == 0 ? bits / 8 : 0;
}

} // namespace impl
} // namespace qgraph
