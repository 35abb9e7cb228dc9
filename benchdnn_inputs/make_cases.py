#!/usr/bin/env python3
"""Writes the graph cases under benchdnn_inputs/graph/ (run from anywhere; plain python3).

Cases without "data" are filled and checked against the ref backend by qbench. Cases with
"data" carry expected outputs computed here from ../shared/NUMERICS.md, independently of
qgraph: binary32 arithmetic is emulated with Python doubles rounded to binary32 (exact for one
+, -, *, / of binary32 operands), rne is Python's round() (ties to even). The comments at each
data case give the rule being pinned down.
"""

import json
import math
import os
import struct

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "graph")
FLT_MAX = struct.unpack("<f", b"\xff\xff\x7f\x7f")[0]
RANGES = {"u8": (0, 255), "s8": (-128, 127), "s32": (-(2**31), 2**31 - 1)}


# ---------------------------------------------------------------- binary32 numerics (NUMERICS.md)
def f32(x):
    """x rounded to binary32 (nearest even; overflow to +-inf)."""
    if math.isnan(x) or math.isinf(x):
        return x
    if abs(x) >= 2.0**128 - 2.0**103:  # halfway above FLT_MAX rounds to inf
        return math.copysign(math.inf, x)
    if abs(x) > FLT_MAX:
        return math.copysign(FLT_MAX, x)
    return struct.unpack("<f", struct.pack("<f", x))[0]


def div32(a, b):
    if b == 0:
        if a == 0 or math.isnan(a):
            return math.nan
        return math.copysign(math.inf, a) * math.copysign(1.0, b)
    if math.isinf(a) and math.isinf(b):
        return math.nan
    return f32(a / b)


def quantize(x, s, zp, dt):
    """y = saturate(rne(x / s) + zp); NaN -> qmin."""
    lo, hi = RANGES[dt]
    v = div32(x, s)
    if math.isnan(v):
        return lo
    if math.isinf(v):
        return hi if v > 0 else lo
    return min(hi, max(lo, round(v) + zp))


def dequantize(x, zp, s):
    """y = f32(x - zp) * s, two roundings."""
    return f32(f32(float(x - zp)) * s)


def dynamic_quantize_linear(xs):
    if any(math.isnan(x) for x in xs):
        return [0] * len(xs), math.nan, 255
    lo = min([0.0] + xs)
    hi = max([0.0] + xs)
    if lo == 0 and hi == 0:
        return [0] * len(xs), 1.0, 0
    scale = div32(f32(hi - lo), 255.0)
    z = f32(0.0 - div32(lo, scale))
    zp = 255 if math.isnan(z) else round(min(255.0, max(0.0, z)))
    return [quantize(x, scale, zp, "u8") for x in xs], scale, zp


# ---------------------------------------------------------------- case building
def dense(shape):
    strides, acc = [], 1
    for d in reversed(shape):
        strides.insert(0, acc)
        acc *= max(d, 1)
    return strides


def lt(tid, dtype, shape, stride=None, layout="strided"):
    return {"id": tid, "dtype": dtype, "shape": list(shape),
            "stride": list(stride if stride is not None else dense(shape))
            if layout == "strided" else [],
            "layout_type": layout, "property_type": "undef"}


def attr(t, v):
    return {"type": t, "value": v}


def op(oid, kind, name, inputs, outputs, **attrs):
    return {"id": oid, "name": name, "kind": kind, "attrs": attrs,
            "inputs": inputs, "outputs": outputs}


def case(ops, data=None):
    c = {"version": "0.1.0", "engine_kind": "cpu", "fpmath_mode": "strict", "graph": ops}
    if data is not None:
        c["data"] = data
    return c


def jnum(v):
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
    return v


def data(inputs, expected):
    return {"inputs": {str(k): [jnum(v) for v in vs] for k, vs in inputs.items()},
            "expected": {str(k): [jnum(v) for v in vs] for k, vs in expected.items()}}


def dump(c):
    """Compact JSON: one line per logical tensor, like ../shared/conformance/onnx."""
    lines = ["{"]
    head = [f' "{k}": {json.dumps(c[k])}' for k in ("version", "engine_kind", "fpmath_mode")]
    lines.append(",\n".join(head) + ",")
    lines.append(' "graph": [')
    ops = []
    for o in c["graph"]:
        s = [f'  {{"id": {o["id"]}, "name": {json.dumps(o["name"])}, "kind": "{o["kind"]}",']
        s.append(f'   "attrs": {json.dumps(o["attrs"])},')
        for port in ("inputs", "outputs"):
            ts = ",\n".join("    " + json.dumps(t) for t in o[port])
            s.append(f'   "{port}": [\n{ts}]' + ("," if port == "inputs" else ""))
        ops.append("\n".join(s) + "\n  }")
    lines.append(",\n".join(ops))
    if "data" in c:
        lines.append(" ],")
        d = c["data"]
        parts = []
        for sec in ("inputs", "expected"):
            body = ",\n".join(f'   "{k}": {json.dumps(v)}' for k, v in d[sec].items())
            parts.append(f'  "{sec}": {{\n{body}}}')
        lines.append(' "data": {\n' + ",\n".join(parts) + "\n }")
    else:
        lines.append(" ]")
    lines.append("}")
    return "\n".join(lines) + "\n"


CASES = {}


def add(path, c):
    CASES[path] = c


def n_of(shape):
    return math.prod(shape)


# ---------------------------------------------------------------- Quantize (oneDNN, static)
def static_q(kind, src_dt, dst_dt, shape, qtype, scales, zps, axis=1, sstride=None,
             dstride=None, dlayout="strided"):
    return case([op(0, kind, kind.lower(), [lt(0, src_dt, shape, sstride)],
                    [lt(1, dst_dt, shape, dstride, dlayout)],
                    qtype=attr("string", qtype), axis=attr("s64", axis),
                    scales=attr("f32[]", scales), zps=attr("s64[]", zps))])


Q = "quantize"
add(f"{Q}/f32_u8_per_tensor.json", static_q("Quantize", "f32", "u8", [2, 16, 9, 7], "per_tensor", [0.5], [0]))
add(f"{Q}/f32_u8_per_tensor_zp.json", static_q("Quantize", "f32", "u8", [3, 5, 33], "per_tensor", [2.0], [131]))
add(f"{Q}/f32_s8_per_tensor_non_pow2.json", static_q("Quantize", "f32", "s8", [4, 8, 16], "per_tensor", [0.1], [-3]))
add(f"{Q}/f32_s8_per_channel_axis1.json", static_q("Quantize", "f32", "s8", [2, 3, 5, 5], "per_channel", [0.25, 3.0, 1.0], [0, 5, -7]))
add(f"{Q}/f32_u8_per_channel_axis0.json", static_q("Quantize", "f32", "u8", [4, 31], "per_channel", [1.0, 0.5, 0.3, 8.0], [0, 1, 128, 255], axis=0))
add(f"{Q}/f32_u8_per_channel_axis_neg1.json", static_q("Quantize", "f32", "u8", [3, 7, 4], "per_channel", [0.5, 0.7, 2.0, 4.0], [10, 0, 3, 200], axis=-1))
add(f"{Q}/f32_s8_per_channel_axis3.json", static_q("Quantize", "f32", "s8", [2, 4, 3, 6], "per_channel", [1.5, 0.25, 1.0, 2.0, 0.125, 10.0], [0, 0, -1, 1, 0, 3], axis=3))
add(f"{Q}/f32_u8_nhwc_src.json", static_q("Quantize", "f32", "u8", [2, 16, 5, 7], "per_tensor", [0.25], [7], sstride=[560, 1, 112, 16]))
add(f"{Q}/f32_s8_padded_dst.json", static_q("Quantize", "f32", "s8", [3, 10], "per_channel", [0.5, 1.0, 4.0], [0, 1, -1], axis=0, dstride=[16, 1]))
add(f"{Q}/f32_u8_dst_any.json", static_q("Quantize", "f32", "u8", [8, 65], "per_tensor", [1.0], [1], dlayout="any"))
add(f"{Q}/f32_u8_empty.json", static_q("Quantize", "f32", "u8", [2, 0, 5], "per_tensor", [0.5], [0]))
add(f"{Q}/f32_s8_scalar.json", static_q("Quantize", "f32", "s8", [], "per_tensor", [0.5], [1]))

# NaN gives qmin whatever the zero point; rounding before the zero point; saturation.
xs = [math.nan, 0.25, 0.75, 77.25, 77.75, -50.0, 1000.0, math.inf, -math.inf, -0.0]
add(f"{Q}/data_f32_u8_nan_ties_zp.json", case(
    static_q("Quantize", "f32", "u8", [10], "per_tensor", [0.5], [100])["graph"],
    data({0: xs}, {1: [quantize(x, 0.5, 100, "u8") for x in xs]})))
# per_channel along the last axis (-1), odd zero points, non-power-of-two scale.
xs = [0.5, 0.5, 0.5, -0.5, -0.5, -0.5, 12.7, 12.7, 12.7, -300.0, 300.0, 0.05]
sc, zp = [1.0, 0.1, 3.0], [3, -1, 0]
add(f"{Q}/data_f32_s8_per_channel_neg_axis.json", case(
    static_q("Quantize", "f32", "s8", [4, 3], "per_channel", sc, zp, axis=-1)["graph"],
    data({0: xs}, {1: [quantize(x, sc[i % 3], zp[i % 3], "s8") for i, x in enumerate(xs)]})))

# ---------------------------------------------------------------- Dequantize (oneDNN, static)
D = "dequantize"
add(f"{D}/u8_f32_per_tensor.json", static_q("Dequantize", "u8", "f32", [2, 16, 9, 7], "per_tensor", [0.5], [0]))
add(f"{D}/u8_f32_per_tensor_zp.json", static_q("Dequantize", "u8", "f32", [3, 5, 33], "per_tensor", [0.1], [129]))
add(f"{D}/s8_f32_per_tensor_zp.json", static_q("Dequantize", "s8", "f32", [4, 8, 16], "per_tensor", [3.0], [-5]))
add(f"{D}/s8_f32_per_channel_axis1.json", static_q("Dequantize", "s8", "f32", [2, 3, 5, 5], "per_channel", [0.25, 3.0, 1.0], [0, 5, -7]))
add(f"{D}/u8_f32_per_channel_axis_neg2.json", static_q("Dequantize", "u8", "f32", [3, 4, 9], "per_channel", [0.5, 0.7, 2.0, 4.0], [10, 0, 3, 200], axis=-2))
add(f"{D}/s8_f32_per_channel_axis0.json", static_q("Dequantize", "s8", "f32", [5, 12], "per_channel", [1.0, 0.125, 0.3, 16.0, 0.1], [0, 1, -1, 127, -128], axis=0))
add(f"{D}/u8_f32_nchw_to_nhwc.json", static_q("Dequantize", "u8", "f32", [2, 16, 5, 7], "per_tensor", [0.25], [7], dstride=[560, 1, 112, 16]))
add(f"{D}/s8_f32_padded_src.json", static_q("Dequantize", "s8", "f32", [3, 10], "per_channel", [0.5, 1.0, 4.0], [0, 1, -1], axis=0, sstride=[16, 1]))
add(f"{D}/s8_f32_dst_any.json", static_q("Dequantize", "s8", "f32", [8, 65], "per_tensor", [1.0], [1], dlayout="any"))
add(f"{D}/u8_f32_empty.json", static_q("Dequantize", "u8", "f32", [0, 4], "per_tensor", [0.5], [0]))
add(f"{D}/s8_f32_scalar.json", static_q("Dequantize", "s8", "f32", [], "per_tensor", [0.5], [1]))

# y = f32(x - zp) * s: the difference is exact, one rounding to f32, one product.
xs = [-128, 127, 0, 1, -1, 5, -3, 100]
add(f"{D}/data_s8_f32_odd_zp.json", case(
    static_q("Dequantize", "s8", "f32", [8], "per_tensor", [0.1], [-3])["graph"],
    data({0: xs}, {1: [dequantize(x, -3, f32(0.1)) for x in xs]})))


# ---------------------------------------------------------------- DynamicQuantize / DynamicDequantize
def dyn(kind, src_dt, dst_dt, shape, qtype, zp_dt=None, axis=1, sstride=None, dstride=None,
        dlayout="strided"):
    c = shape[axis] if qtype == "per_channel" else 1
    ins = [lt(0, src_dt, shape, sstride), lt(1, "f32", [c])]
    if zp_dt:
        ins.append(lt(2, zp_dt, [c]))
    attrs = {"qtype": attr("string", qtype)}
    if qtype == "per_channel":
        attrs["axis"] = attr("s64", axis)
    return case([op(0, kind, kind.lower(), ins, [lt(3, dst_dt, shape, dstride, dlayout)], **attrs)])


DQ = "dynamic_quantize"
add(f"{DQ}/f32_u8_per_tensor.json", dyn("DynamicQuantize", "f32", "u8", [2, 16, 9, 7], "per_tensor"))
add(f"{DQ}/f32_s8_per_tensor.json", dyn("DynamicQuantize", "f32", "s8", [3, 5, 33], "per_tensor"))
add(f"{DQ}/f32_u8_per_tensor_u8_zp.json", dyn("DynamicQuantize", "f32", "u8", [3, 5, 33], "per_tensor", "u8"))
add(f"{DQ}/f32_s8_per_tensor_s8_zp.json", dyn("DynamicQuantize", "f32", "s8", [4, 8, 16], "per_tensor", "s8"))
add(f"{DQ}/f32_u8_per_tensor_s32_zp.json", dyn("DynamicQuantize", "f32", "u8", [4, 8, 16], "per_tensor", "s32"))
add(f"{DQ}/f32_s8_per_tensor_u8_zp.json", dyn("DynamicQuantize", "f32", "s8", [4, 8, 16], "per_tensor", "u8"))
add(f"{DQ}/f32_s8_per_channel_axis1.json", dyn("DynamicQuantize", "f32", "s8", [2, 64, 3, 3], "per_channel"))
add(f"{DQ}/f32_u8_per_channel_axis1_u8_zp.json", dyn("DynamicQuantize", "f32", "u8", [2, 17, 3, 5], "per_channel", "u8"))
add(f"{DQ}/f32_s8_per_channel_axis0_s32_zp.json", dyn("DynamicQuantize", "f32", "s8", [6, 40], "per_channel", "s32", axis=0))
add(f"{DQ}/f32_u8_per_channel_axis_neg1_s8_zp.json", dyn("DynamicQuantize", "f32", "u8", [5, 3, 8], "per_channel", "s8", axis=-1))
add(f"{DQ}/f32_s8_nhwc_src.json", dyn("DynamicQuantize", "f32", "s8", [2, 16, 5, 7], "per_channel", "s8", sstride=[560, 1, 112, 16]))
add(f"{DQ}/f32_u8_dst_any.json", dyn("DynamicQuantize", "f32", "u8", [8, 65], "per_tensor", "u8", dlayout="any"))
add(f"{DQ}/f32_s8_empty.json", dyn("DynamicQuantize", "f32", "s8", [3, 0], "per_tensor"))

# s32 zero point: rne(x/s) + zp is formed exactly, then saturated to u8.
xs = [200.0, 300.0, 200.75, 0.0, 1000.0, -1000.0, 150.25, 199.75]
add(f"{DQ}/data_f32_u8_s32_zp.json", case(
    dyn("DynamicQuantize", "f32", "u8", [8], "per_tensor", "s32")["graph"],
    data({0: xs, 1: [0.5], 2: [-300]},
         {3: [quantize(x, 0.5, -300, "u8") for x in xs]})))

DD = "dynamic_dequantize"
add(f"{DD}/s8_f32_per_tensor.json", dyn("DynamicDequantize", "s8", "f32", [2, 16, 9, 7], "per_tensor"))
add(f"{DD}/u8_f32_per_tensor_u8_zp.json", dyn("DynamicDequantize", "u8", "f32", [3, 5, 33], "per_tensor", "u8"))
add(f"{DD}/s8_f32_per_tensor_s8_zp.json", dyn("DynamicDequantize", "s8", "f32", [4, 8, 16], "per_tensor", "s8"))
add(f"{DD}/u8_f32_per_tensor_s32_zp.json", dyn("DynamicDequantize", "u8", "f32", [4, 8, 16], "per_tensor", "s32"))
add(f"{DD}/s8_f32_per_channel_axis1.json", dyn("DynamicDequantize", "s8", "f32", [2, 64, 3, 3], "per_channel"))
add(f"{DD}/u8_f32_per_channel_axis1_u8_zp.json", dyn("DynamicDequantize", "u8", "f32", [2, 17, 3, 5], "per_channel", "u8"))
add(f"{DD}/s8_f32_per_channel_axis0_s32_zp.json", dyn("DynamicDequantize", "s8", "f32", [6, 40], "per_channel", "s32", axis=0))
add(f"{DD}/u8_f32_per_channel_axis_neg1_s8_zp.json", dyn("DynamicDequantize", "u8", "f32", [5, 3, 8], "per_channel", "s8", axis=-1))
add(f"{DD}/s8_f32_nchw_to_nhwc.json", dyn("DynamicDequantize", "s8", "f32", [2, 16, 5, 7], "per_channel", "s8", dstride=[560, 1, 112, 16]))
add(f"{DD}/u8_f32_dst_any.json", dyn("DynamicDequantize", "u8", "f32", [8, 65], "per_tensor", "u8", dlayout="any"))
add(f"{DD}/s8_f32_empty.json", dyn("DynamicDequantize", "s8", "f32", [0, 3], "per_tensor"))

# per_channel along axis 0 with u8 zero points.
xs = [0, 255, 128, 7, 0, 255, 128, 7]
sc, zp = [0.1, 3.0], [128, 7]
add(f"{DD}/data_u8_f32_per_channel_u8_zp.json", case(
    dyn("DynamicDequantize", "u8", "f32", [2, 4], "per_channel", "u8", axis=0)["graph"],
    data({0: xs, 1: sc, 2: zp},
         {3: [dequantize(x, zp[i // 4], f32(sc[i // 4])) for i, x in enumerate(xs)]})))


# ---------------------------------------------------------------- QuantizeLinear / DequantizeLinear
def linear(kind, x_dt, y_dt, shape, sshape, zp_dt=None, axis=None, xstride=None, ystride=None,
           ylayout="strided"):
    ins = [lt(0, x_dt, shape, xstride), lt(1, "f32", sshape)]
    if zp_dt:
        ins.append(lt(2, zp_dt, sshape))
    attrs = {} if axis is None else {"axis": attr("s64", axis)}
    return case([op(0, kind, kind.lower(), ins, [lt(3, y_dt, shape, ystride, ylayout)], **attrs)])


QL = "quantize_linear"
add(f"{QL}/f32_u8_scalar_scale.json", linear("QuantizeLinear", "f32", "u8", [2, 16, 9, 7], [], "u8"))
add(f"{QL}/f32_u8_scalar_scale_no_zp.json", linear("QuantizeLinear", "f32", "u8", [3, 5, 33], []))
add(f"{QL}/f32_s8_scalar_scale.json", linear("QuantizeLinear", "f32", "s8", [4, 8, 16], [], "s8"))
add(f"{QL}/f32_u8_one_element_scale.json", linear("QuantizeLinear", "f32", "u8", [4, 8, 16], [1], "u8"))
add(f"{QL}/f32_u8_axis1.json", linear("QuantizeLinear", "f32", "u8", [2, 17, 3, 5], [17], "u8"))
add(f"{QL}/f32_s8_axis0.json", linear("QuantizeLinear", "f32", "s8", [6, 40], [6], "s8", axis=0))
add(f"{QL}/f32_s8_axis_neg1.json", linear("QuantizeLinear", "f32", "s8", [5, 3, 8], [8], "s8", axis=-1))
add(f"{QL}/f32_u8_axis2.json", linear("QuantizeLinear", "f32", "u8", [2, 3, 11, 4], [11], "u8", axis=2))
add(f"{QL}/f32_u8_nhwc_src.json", linear("QuantizeLinear", "f32", "u8", [2, 16, 5, 7], [16], "u8", axis=1, xstride=[560, 1, 112, 16]))
add(f"{QL}/f32_s8_padded_dst.json", linear("QuantizeLinear", "f32", "s8", [3, 10], [], "s8", ystride=[16, 1]))
add(f"{QL}/f32_u8_dst_any.json", linear("QuantizeLinear", "f32", "u8", [8, 65], [], "u8", ylayout="any"))
add(f"{QL}/f32_u8_empty.json", linear("QuantizeLinear", "f32", "u8", [2, 0, 3], [], "u8"))
add(f"{QL}/f32_s8_scalar_x.json", linear("QuantizeLinear", "f32", "s8", [], [], "s8"))

# Ties to even before an odd zero point (oneDNN's reorder would add zp first: 3.5 -> 4).
xs = [1.0, 3.0, 5.0, 7.0, 9.0, -1.0, -3.0, -7.0, 510.0, -0.0]
add(f"{QL}/data_f32_u8_ties_odd_zp.json", case(
    linear("QuantizeLinear", "f32", "u8", [10], [], "u8")["graph"],
    data({0: xs, 1: [2.0], 2: [3]}, {3: [quantize(x, 2.0, 3, "u8") for x in xs]})))
# Saturation of huge values and +-Inf, NaN -> qmin, |x/s| >= 2^31 without int32 wrap.
xs = [math.inf, -math.inf, math.nan, FLT_MAX, -FLT_MAX, 1e10, -1e10, 254.0, 255.0, 256.0,
      -256.0, -258.0, 4294967296.0, -0.0]
add(f"{QL}/data_f32_s8_saturation.json", case(
    linear("QuantizeLinear", "f32", "s8", [14], [], "s8")["graph"],
    data({0: xs, 1: [2.0], 2: [-1]}, {3: [quantize(x, 2.0, -1, "s8") for x in xs]})))
# Without a zero point the output is u8 and zp is 0; 0.1 is not a power of two.
xs = [0.05, 0.15, 0.25, 1.0, 25.5, 25.55, -0.05, 100.0]
add(f"{QL}/data_f32_u8_no_zp_non_pow2.json", case(
    linear("QuantizeLinear", "f32", "u8", [8], [])["graph"],
    data({0: [f32(x) for x in xs], 1: [f32(0.1)]},
         {3: [quantize(f32(x), f32(0.1), 0, "u8") for x in xs]})))
# Per-axis along axis -2, strided (column-major) output: data stays in logical order.
xs = [0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 100.0, -100.0, 7.25]
sc, zp = [1.0, 0.5, 3.0], [0, 1, -1]
add(f"{QL}/data_f32_s8_axis_neg2_strided.json", case(
    linear("QuantizeLinear", "f32", "s8", [3, 3], [3], "s8", axis=-2, ystride=[1, 3])["graph"],
    data({0: xs, 1: sc, 2: zp}, {3: [quantize(x, sc[i // 3], zp[i // 3], "s8") for i, x in enumerate(xs)]})))
# 0-D x, scale and zero point.
add(f"{QL}/data_f32_u8_scalar.json", case(
    linear("QuantizeLinear", "f32", "u8", [], [], "u8")["graph"],
    data({0: [-2.5], 1: [0.5], 2: [9]}, {3: [quantize(-2.5, 0.5, 9, "u8")]})))
# An empty tensor: no values, nothing written, PASSED.
add(f"{QL}/data_f32_u8_empty.json", case(
    linear("QuantizeLinear", "f32", "u8", [2, 0, 3], [], "u8")["graph"],
    data({0: [], 1: [0.5], 2: [9]}, {3: []})))

DL = "dequantize_linear"
add(f"{DL}/u8_f32_scalar_scale.json", linear("DequantizeLinear", "u8", "f32", [2, 16, 9, 7], [], "u8"))
add(f"{DL}/u8_f32_scalar_scale_no_zp.json", linear("DequantizeLinear", "u8", "f32", [3, 5, 33], []))
add(f"{DL}/s8_f32_scalar_scale.json", linear("DequantizeLinear", "s8", "f32", [4, 8, 16], [], "s8"))
add(f"{DL}/s32_f32_scalar_scale.json", linear("DequantizeLinear", "s32", "f32", [4, 8, 16], []))
add(f"{DL}/s32_f32_axis1.json", linear("DequantizeLinear", "s32", "f32", [2, 17, 3, 5], [17]))
add(f"{DL}/u8_f32_axis1.json", linear("DequantizeLinear", "u8", "f32", [2, 17, 3, 5], [17], "u8"))
add(f"{DL}/s8_f32_axis0.json", linear("DequantizeLinear", "s8", "f32", [6, 40], [6], "s8", axis=0))
add(f"{DL}/s8_f32_axis_neg1.json", linear("DequantizeLinear", "s8", "f32", [5, 3, 8], [8], "s8", axis=-1))
add(f"{DL}/u8_f32_nchw_to_nhwc.json", linear("DequantizeLinear", "u8", "f32", [2, 16, 5, 7], [16], "u8", axis=1, ystride=[560, 1, 112, 16]))
add(f"{DL}/s8_f32_padded_src.json", linear("DequantizeLinear", "s8", "f32", [3, 10], [], "s8", xstride=[16, 1]))
add(f"{DL}/u8_f32_dst_any.json", linear("DequantizeLinear", "u8", "f32", [8, 65], [], "u8", ylayout="any"))
add(f"{DL}/s8_f32_empty.json", linear("DequantizeLinear", "s8", "f32", [0], [], "s8"))
add(f"{DL}/u8_f32_scalar_x.json", linear("DequantizeLinear", "u8", "f32", [], [], "u8"))

# int32 input, no zero point: y = f32(x) * s; 2^31-1 and 2^24+1 round when converted.
xs = [2147483647, -2147483648, 16777217, 16777219, 1, -3, 0]
add(f"{DL}/data_s32_f32_rounding.json", case(
    linear("DequantizeLinear", "s32", "f32", [7], [])["graph"],
    data({0: xs, 1: [0.5]}, {3: [dequantize(x, 0, 0.5) for x in xs]})))
# Odd zero point, non-power-of-two scale, per axis 1.
xs = [0, 255, 128, 3, 0, 255, 128, 3]
sc, zp = [0.1, 3.0], [129, 0]
add(f"{DL}/data_u8_f32_axis1_odd_zp.json", case(
    linear("DequantizeLinear", "u8", "f32", [2, 2, 2], [2], "u8", axis=1)["graph"],
    data({0: xs, 1: sc, 2: zp},
         {3: [dequantize(x, zp[(i // 2) % 2], f32(sc[(i // 2) % 2])) for i, x in enumerate(xs)]})))


# ---------------------------------------------------------------- DynamicQuantizeLinear
def dql(shape, xstride=None):
    return case([op(0, "DynamicQuantizeLinear", "dynamicquantizelinear", [lt(0, "f32", shape, xstride)],
                    [lt(1, "u8", shape), lt(2, "f32", []), lt(3, "u8", [])])])


DQL = "dynamic_quantize_linear"
add(f"{DQL}/f32_1d.json", dql([1000]))
add(f"{DQL}/f32_4d.json", dql([2, 16, 9, 7]))
add(f"{DQL}/f32_strided_src.json", dql([3, 10], xstride=[16, 1]))
add(f"{DQL}/f32_scalar.json", dql([]))
add(f"{DQL}/f32_empty.json", dql([4, 0]))


def dql_data(name, xs, shape=None):
    y, s, z = dynamic_quantize_linear(xs)
    add(f"{DQL}/{name}", case(dql(shape if shape is not None else [len(xs)])["graph"],
                              data({0: xs}, {1: y, 2: [s], 3: [z]})))


dql_data("data_all_zero.json", [0.0, 0.0, -0.0, 0.0])  # scale 1, zp 0
dql_data("data_nan.json", [1.0, math.nan, -2.0, 3.0])  # scale NaN, zp 255, y all 0
dql_data("data_pos_inf.json", [1.0, math.inf, -2.0])  # scale Inf, zp 0, y all 0
dql_data("data_neg_inf.json", [1.0, -math.inf, 2.0])  # scale Inf, zp 255, y 255 but 0 at -Inf
dql_data("data_empty.json", [], shape=[0])  # y empty, scale 1, zp 0
dql_data("data_ties.json", [-1.0, 0.5, 1.0, 254.0, 2.0, 3.0])  # scale 1, zp 1: x/s exact

# ---------------------------------------------------------------- large shapes (threads, tails)
add(f"{Q}/f32_u8_per_tensor_large.json", static_q("Quantize", "f32", "u8", [16, 64, 56, 56], "per_tensor", [0.5], [0]))
add(f"{D}/s8_f32_per_tensor_large.json", static_q("Dequantize", "s8", "f32", [16, 64, 56, 56], "per_tensor", [0.25], [-3]))
add(f"{DQ}/f32_u8_per_tensor_u8_zp_large.json", dyn("DynamicQuantize", "f32", "u8", [8, 256, 28, 28], "per_tensor", "u8"))
add(f"{DD}/u8_f32_per_channel_axis1_large.json", dyn("DynamicDequantize", "u8", "f32", [8, 256, 28, 28], "per_channel"))
add(f"{QL}/f32_u8_axis1_large.json", linear("QuantizeLinear", "f32", "u8", [8, 256, 28, 28], [256], "u8"))
add(f"{DL}/s32_f32_scalar_scale_large.json", linear("DequantizeLinear", "s32", "f32", [4, 512, 1001], []))
add(f"{DQL}/f32_large.json", dql([4, 512, 1001]))
# Transposing layouts (src and dst contiguous along different dims); per tensor, which
# oneDNN 2.6's reorder also takes (qbench --mode=P compares them in benchdnn_inputs/perf_jit).
nhwc = [200704, 1, 3584, 64]
add(f"{Q}/f32_u8_nhwc_src_large.json", static_q("Quantize", "f32", "u8", [1, 64, 56, 56], "per_tensor", [0.023], [7], sstride=nhwc))
add(f"{D}/u8_f32_nchw_to_nhwc_large.json", static_q("Dequantize", "u8", "f32", [1, 64, 56, 56], "per_tensor", [0.023], [7], dstride=nhwc))

# ---------------------------------------------------------------- several partitions
CH = "chain"
add(f"{CH}/dequantize_quantize.json", case([
    op(0, "Dequantize", "dq", [lt(0, "u8", [2, 8, 5, 5])], [lt(1, "f32", [2, 8, 5, 5])],
       qtype=attr("string", "per_tensor"), scales=attr("f32[]", [0.5]), zps=attr("s64[]", [3])),
    op(1, "Quantize", "q", [lt(1, "f32", [2, 8, 5, 5])], [lt(2, "s8", [2, 8, 5, 5])],
       qtype=attr("string", "per_channel"), axis=attr("s64", 1),
       scales=attr("f32[]", [0.25, 0.5, 1.0, 2.0, 0.1, 3.0, 4.0, 0.7]),
       zps=attr("s64[]", [0, 1, -1, 2, -2, 3, -3, 5]))]))
add(f"{CH}/quantize_linear_dequantize_linear_any.json", case([
    op(0, "QuantizeLinear", "ql", [lt(0, "f32", [4, 33]), lt(1, "f32", []), lt(2, "s8", [])],
       [lt(3, "s8", [4, 33], layout="any")]),
    op(1, "DequantizeLinear", "dl", [lt(3, "s8", [4, 33], layout="any"), lt(4, "f32", [33]), lt(5, "s8", [33])],
       [lt(6, "f32", [4, 33])], axis=attr("s64", 1))]))
add(f"{CH}/dynamic_quantize_linear_dequantize_linear.json", case([
    op(0, "DynamicQuantizeLinear", "dql", [lt(0, "f32", [3, 40])],
       [lt(1, "u8", [3, 40]), lt(2, "f32", []), lt(3, "u8", [])]),
    op(1, "DequantizeLinear", "dl", [lt(1, "u8", [3, 40]), lt(2, "f32", []), lt(3, "u8", [])],
       [lt(4, "f32", [3, 40])])]))
# Dequantize then QuantizeLinear, exact round trip data: x - zp is re-quantized.
xs = [0, 1, 2, 3, 252, 253, 254, 255]
mid = [dequantize(x, 128, 0.5) for x in xs]
add(f"{CH}/data_dequantize_quantize_linear.json", case([
    op(0, "Dequantize", "dq", [lt(0, "u8", [8])], [lt(1, "f32", [8])],
       qtype=attr("string", "per_tensor"), scales=attr("f32[]", [0.5]), zps=attr("s64[]", [128])),
    op(1, "QuantizeLinear", "ql", [lt(1, "f32", [8]), lt(2, "f32", []), lt(3, "s8", [])],
       [lt(4, "s8", [8])])],
    data({0: xs, 2: [0.25], 3: [-1]}, {4: [quantize(m, 0.25, -1, "s8") for m in mid]})))


def main():
    for path, c in sorted(CASES.items()):
        full = os.path.join(ROOT, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w") as f:
            f.write(dump(c))
    print(f"wrote {len(CASES)} cases under {ROOT}")


if __name__ == "__main__":
    main()
