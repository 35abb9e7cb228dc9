"""ONNX Runtime (CPU execution provider, one thread) on the problems of perf_types: the
issue-12 goals ask qgraph to be faster than ORT wherever ORT has a kernel. Runs where ORT,
onnx and numpy are installed (the 16-core device machine: docs/performance.md says how).
Each line: ort,NAME,threads=1,min_ms=..,median_ms=.. (one call, warm data, like peers.py),
or ort,NAME,error=... where ORT cannot build or run the model. NAME is perf_types' problem.

    python3 benchdnn_inputs/ort_types.py [FILTER]     (FILTER: a substring of NAME)
"""
import sys
import time

import numpy as np
import onnxruntime as ort
from onnx import TensorProto as TP, helper as H, numpy_helper as NH

ONLY = sys.argv[1] if len(sys.argv) > 1 else ""
RNG = np.random.default_rng(0)
E8M0 = getattr(TP, "FLOAT8E8M0", None)
F4 = getattr(TP, "FLOAT4E2M1", None)
IR = {21: 10, 23: 11, 25: 12}
NUMPY = {TP.FLOAT: np.float32, TP.FLOAT16: np.float16, TP.INT8: np.int8, TP.UINT8: np.uint8,
         TP.INT16: np.int16, TP.UINT16: np.uint16}


def session(model):
    so = ort.SessionOptions()
    so.intra_op_num_threads = 1
    so.inter_op_num_threads = 1
    return ort.InferenceSession(model.SerializeToString(), so, providers=["CPUExecutionProvider"])


def one_node(op, x_t, y_t, inits, attrs=None, opset=21):
    ins = ["x"] + [t.name for t in inits]
    node = H.make_node(op, ins, ["y"], **(attrs or {}))
    g = H.make_graph([node], op, [H.make_tensor_value_info("x", x_t, None)],
                     [H.make_tensor_value_info("y", y_t, None)], inits)
    m = H.make_model(g, opset_imports=[H.make_operatorsetid("", opset)])
    m.ir_version = IR[opset]
    return m


def scale(name, t, value, shape=()):
    """A scale tensor of element type t, every element value (f32, f16, bf16 or e8m0)."""
    n = int(np.prod(shape)) if shape else 1
    if t == TP.FLOAT:
        return NH.from_array(np.full(shape, value, np.float32), name)
    if t == TP.FLOAT16:
        return NH.from_array(np.full(shape, value, np.float16), name)
    if t == E8M0:  # value a power of two: the code is its exponent + 127
        code = int(np.log2(value)) + 127
        return H.make_tensor(name, t, list(shape), bytes([code]) * n, raw=True)
    return H.make_tensor(name, t, list(shape), [value] * n)  # bf16


def zero_point(name, t, shape=(), value=0):
    n = int(np.prod(shape)) if shape else 1
    if t in NUMPY:
        return NH.from_array(np.full(shape, value, NUMPY[t]), name)
    return H.make_tensor(name, t, list(shape), [value] * n)


def make_input(t, shape, lo, hi):
    """An OrtValue of element type t: numpy types directly, others converted by ORT itself
    (Cast for 16-bit floats, QuantizeLinear with scale 1 for 4-bit and float8 codes)."""
    if t in NUMPY:
        if np.issubdtype(NUMPY[t], np.integer):
            return ort.OrtValue.ortvalue_from_numpy(RNG.integers(lo, hi + 1, size=shape).astype(NUMPY[t]))
        return ort.OrtValue.ortvalue_from_numpy(RNG.uniform(lo, hi, size=shape).astype(NUMPY[t]))
    f = ort.OrtValue.ortvalue_from_numpy(RNG.uniform(lo, hi, size=shape).astype(np.float32))
    if t == TP.BFLOAT16:
        m = one_node("Cast", TP.FLOAT, t, [], {"to": t})
    else:
        m = one_node("QuantizeLinear", TP.FLOAT, t, [scale("s", TP.FLOAT, 1.0), zero_point("zp", t)],
                     opset=23 if t == F4 else 21)
    return session(m).run_with_ort_values(["y"], {"x": f})[0]


def bench(name, model, x_t, shape, lo, hi):
    if ONLY not in name:
        return
    iters = 20 if np.prod(shape) > 4e6 else 300  # 4096x4096: a few ms a call
    try:
        s = session(model)
        io = s.io_binding()
        io.bind_ortvalue_input("x", make_input(x_t, shape, lo, hi))
        io.bind_output("y", "cpu")
        s.run_with_iobinding(io)
        ts = []
        for _ in range(iters):
            t = time.perf_counter()
            s.run_with_iobinding(io)
            ts.append(time.perf_counter() - t)
        ts.sort()
        print("ort,%s,threads=1,min_ms=%.4f,median_ms=%.4f" % (name, ts[0] * 1e3, ts[len(ts) // 2] * 1e3),
              flush=True)
    except Exception as e:  # ORT lacks the kernel or the type: say so and go on
        print("ort,%s,error=%s" % (name, str(e).replace("\n", " ")[:160]), flush=True)


def q(name, x_t, y_t, s_t, s, shape, s_shape=(), zp=None, attrs=None, opset=21, lo=-6.4, hi=6.4):
    inits = [scale("s", s_t, s, s_shape)] + ([zp] if zp is not None else [])
    if zp is None and y_t != TP.UINT8:  # the output type is the zero point's, else u8
        attrs = dict(attrs or {}, output_dtype=y_t)
    bench(name, one_node("QuantizeLinear", x_t, y_t, inits, attrs, opset), x_t, shape, lo, hi)


def dq(name, x_t, y_t, s_t, s, shape, s_shape=(), zp=None, attrs=None, opset=21, lo=-8, hi=7):
    inits = [scale("s", s_t, s, s_shape)] + ([zp] if zp is not None else [])
    bench(name, one_node("DequantizeLinear", x_t, y_t, inits, attrs, opset), x_t, shape, lo, hi)


print("onnxruntime", ort.__version__, flush=True)
T = (1, 64, 56, 56)
W = (4096, 4096)
C = (64, 3136)
blk = lambda axis, b: {"axis": axis, "block_size": b}
# Grouped 4-bit weights to bf16 (bf16 scales), groups along the last dim; f32 beside them.
for t, n in ((TP.INT4, "s4"), (TP.UINT4, "u4")):
    lo, hi = (-8, 7) if t == TP.INT4 else (0, 15)
    dq("DequantizeLinear %s bf16 --group=1x128 4096x4096" % n, t, TP.BFLOAT16, TP.BFLOAT16, 0.5, W, (4096, 32),
       attrs=blk(1, 128), lo=lo, hi=hi)
    dq("DequantizeLinear %s f32 --group=1x128 4096x4096" % n, t, TP.FLOAT, TP.FLOAT, 0.5, W, (4096, 32),
       attrs=blk(1, 128), lo=lo, hi=hi)
    for g in (32, 64):
        dq("DequantizeLinear %s bf16 --group=1x%d 64x3136" % (n, g), t, TP.BFLOAT16, TP.BFLOAT16, 0.5, C,
           (64, 3136 // g), attrs=blk(1, g), lo=lo, hi=hi)
# 16-bit float sources into u8, per tensor.
q("QuantizeLinear f16 u8 --scale-dt=f16 1x64x56x56", TP.FLOAT16, TP.UINT8, TP.FLOAT16, 0.01171875, T)
q("QuantizeLinear bf16 u8 --scale-dt=bf16 1x64x56x56", TP.BFLOAT16, TP.UINT8, TP.BFLOAT16, 0.01171875, T)
q("QuantizeLinear f16 u8 --scale=0.023 (f32 scale) 1x64x56x56", TP.FLOAT16, TP.UINT8, TP.FLOAT, 0.023, T, opset=25)
# float8.
for t, n in ((TP.FLOAT8E4M3FN, "f8_e4m3"), (TP.FLOAT8E5M2, "f8_e5m2")):
    q("Quantize f32 %s 1x64x56x56" % n, TP.FLOAT, t, TP.FLOAT, 0.023, T, zp=zero_point("zp", t))
    dq("Dequantize %s f32 1x64x56x56" % n, t, TP.FLOAT, TP.FLOAT, 0.023, T, zp=zero_point("zp", t), lo=-4, hi=4)
    dq("Dequantize %s f16 1x64x56x56" % n, t, TP.FLOAT16, TP.FLOAT16, 0.023, T, zp=zero_point("zp", t), lo=-4, hi=4)
    dq("Dequantize %s bf16 1x64x56x56" % n, t, TP.BFLOAT16, TP.BFLOAT16, 0.0234375, T, zp=zero_point("zp", t),
       lo=-4, hi=4)
# 16-bit integers.
q("QuantizeLinear f32 s16 1x64x56x56", TP.FLOAT, TP.INT16, TP.FLOAT, 0.023, T, zp=zero_point("zp", TP.INT16))
q("QuantizeLinear f32 u16 1x64x56x56", TP.FLOAT, TP.UINT16, TP.FLOAT, 0.023, T, zp=zero_point("zp", TP.UINT16))
dq("DequantizeLinear s16 f32 1x64x56x56", TP.INT16, TP.FLOAT, TP.FLOAT, 0.023, T, zp=zero_point("zp", TP.INT16),
   lo=-32768, hi=32767)
# Blocked 8-bit.
for t, n in ((TP.INT8, "s8"), (TP.UINT8, "u8")):
    q("QuantizeLinear f32 %s --group=1x32 64x3136" % n, TP.FLOAT, t, TP.FLOAT, 0.023, C, (64, 98),
      zp=zero_point("zp", t, (64, 98)), attrs=blk(1, 32))
    dq("DequantizeLinear %s f32 --group=1x32 64x3136" % n, t, TP.FLOAT, TP.FLOAT, 0.023, C, (64, 98),
       zp=zero_point("zp", t, (64, 98)), attrs=blk(1, 32), lo=-128 if t == TP.INT8 else 0,
       hi=127 if t == TP.INT8 else 255)
q("QuantizeLinear f32 u8 --group=1x128 64x3136", TP.FLOAT, TP.UINT8, TP.FLOAT, 0.023, C, (64, 25),
  zp=zero_point("zp", TP.UINT8, (64, 25)), attrs=blk(1, 128))
q("QuantizeLinear f32 u8 --group=128x1 64x3136", TP.FLOAT, TP.UINT8, TP.FLOAT, 0.023, C, (1, 3136),
  zp=zero_point("zp", TP.UINT8, (1, 3136)), attrs=blk(0, 128))
# Per channel on the last axis.
q("QuantizeLinear f32 u8 per_channel --axis=1 64x3136", TP.FLOAT, TP.UINT8, TP.FLOAT, 0.023, C, (3136,),
  attrs={"axis": 1})
q("QuantizeLinear f32 u8 per_channel --axis=1 --zp=u8 64x3136", TP.FLOAT, TP.UINT8, TP.FLOAT, 0.023, C, (3136,),
  zp=zero_point("zp", TP.UINT8, (3136,), 128), attrs={"axis": 1})
q("QuantizeLinear f16 u8 per_channel --axis=1 --scale-dt=f16 64x3136", TP.FLOAT16, TP.UINT8, TP.FLOAT16, 0.01171875,
  C, (3136,), attrs={"axis": 1})
q("QuantizeLinear f16 u8 per_channel --axis=1 --zp=u8 --scale-dt=f16 64x3136", TP.FLOAT16, TP.UINT8, TP.FLOAT16,
  0.01171875, C, (3136,), zp=zero_point("zp", TP.UINT8, (3136,), 128), attrs={"axis": 1})
dq("DequantizeLinear u8 f16 per_channel --axis=1 --scale-dt=f16 64x3136", TP.UINT8, TP.FLOAT16, TP.FLOAT16,
   0.01171875, C, (3136,), attrs={"axis": 1}, lo=0, hi=255)
dq("DequantizeLinear u8 f16 per_channel --axis=1 --zp=u8 --scale-dt=f16 64x3136", TP.UINT8, TP.FLOAT16, TP.FLOAT16,
   0.01171875, C, (3136,), zp=zero_point("zp", TP.UINT8, (3136,), 128), attrs={"axis": 1}, lo=0, hi=255)
# 4-bit blocks along the rows, per-channel 4-bit, 4-bit quantize.
for t, n in ((TP.INT4, "s4"), (TP.UINT4, "u4")):
    lo, hi = (-8, 7) if t == TP.INT4 else (0, 15)
    for y, yn in ((TP.FLOAT, "f32"), (TP.BFLOAT16, "bf16"), (TP.FLOAT16, "f16")):
        dq("DequantizeLinear %s %s --group=32x1 4096x4096" % (n, yn), t, y, y,
           0.0234375, W, (128, 4096), attrs=blk(0, 32), lo=lo, hi=hi)
dq("DequantizeLinear u4 bf16 per_channel --axis=1 --zp=u4 64x3136", TP.UINT4, TP.BFLOAT16, TP.BFLOAT16, 0.0234375,
   C, (3136,), zp=zero_point("zp", TP.UINT4, (3136,), 8), attrs={"axis": 1}, lo=0, hi=15)
for t, n in ((TP.UINT4, "u4"), (TP.INT4, "s4")):
    q("QuantizeLinear f32 %s --group=1x128 4096x4096" % n, TP.FLOAT, t, TP.FLOAT, 0.023, W, (4096, 32),
      zp=zero_point("zp", t, (4096, 32)), attrs=blk(1, 128))
q("QuantizeLinear f32 s4 1x64x56x56", TP.FLOAT, TP.INT4, TP.FLOAT, 0.023, T, zp=zero_point("zp", TP.INT4))
q("QuantizeLinear f16 s4 --scale-dt=f16 1x64x56x56", TP.FLOAT16, TP.INT4, TP.FLOAT16, 0.0234375, T,
  zp=zero_point("zp", TP.INT4))
q("QuantizeLinear f32 u4 per_channel --axis=0 --zp=u4 64x3136", TP.FLOAT, TP.UINT4, TP.FLOAT, 0.023, C, (64,),
  zp=zero_point("zp", TP.UINT4, (64,), 8), attrs={"axis": 0})
# MX: f4_e2m1 and f8_e4m3 with e8m0 scales in blocks of 32 (opset 25), and the same with f32
# scales of the same powers of two (opset 23) where ORT lacks e8m0.
for s_t, sn, opset in ((E8M0, "e8m0", 25), (TP.FLOAT, "f32", 23)):
    if s_t is None:
        continue
    if F4 is not None:
        for y, yn in ((TP.BFLOAT16, "bf16"), (TP.FLOAT, "f32")):
            dq("DequantizeLinear f4_e2m1 %s --group=1x32 --scale-dt=%s 4096x4096" % (yn, sn), F4, y, s_t, 0.5, W,
               (4096, 128), attrs=dict(blk(1, 32), output_dtype=y) if s_t != y else blk(1, 32), opset=opset,
               lo=-6, hi=6)
        q("QuantizeLinear f32 f4_e2m1 --group=1x32 --scale-dt=%s 4096x4096" % sn, TP.FLOAT, F4, s_t, 0.5, W,
          (4096, 128), attrs=blk(1, 32), opset=opset)
    for y, yn in ((TP.BFLOAT16, "bf16"), (TP.FLOAT, "f32")):
        dq("DequantizeLinear f8_e4m3 %s --group=1x32 --scale-dt=%s 64x3136" % (yn, sn), TP.FLOAT8E4M3FN, y, s_t, 0.5,
           C, (64, 98), attrs=dict(blk(1, 32), output_dtype=y) if s_t != y else blk(1, 32), opset=opset,
           lo=-4, hi=4)
    for x, xn in ((TP.FLOAT, "f32"), (TP.BFLOAT16, "bf16")):
        q("QuantizeLinear %s f8_e4m3 --group=1x32 --scale-dt=%s 64x3136" % (xn, sn), x, TP.FLOAT8E4M3FN, s_t, 0.5,
          C, (64, 98), attrs=blk(1, 32), opset=opset)
