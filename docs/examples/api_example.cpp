// qgraph API example: build a graph, partition, compile, execute, check against values worked
// out by hand (docs/semantics.md), and catch a qgraph::error. Exits 0 on success, 1 otherwise.
//
// Build against an installed qgraph: tests/consumer/CMakeLists.txt.

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "qgraph/qgraph.hpp"

using namespace qgraph;
using dt = logical_tensor::data_type;
using lt = logical_tensor;

int main() {
    int failures = 0;
    try {
        engine eng(engine::kind::cpu, 0);
        stream strm(eng);
        graph g(engine::kind::cpu);

        // Op 0: ONNX QuantizeLinear, per-axis along axis 1: x f32 2x3, y_scale f32[3],
        // y_zero_point u8[3] (the zero point's type makes y u8). y's shape is left to the
        // graph (shape inference) and its layout to the library (layout `any`).
        const lt x(0, dt::f32, {2, 3}, lt::layout_type::strided);
        const lt y_scale(1, dt::f32, {3}, lt::layout_type::strided);
        const lt y_zp(2, dt::u8, {3}, lt::layout_type::strided);
        const lt y(3, dt::u8, lt::layout_type::any);
        op qlinear(0, op::kind::QuantizeLinear, {x, y_scale, y_zp}, {y}, "qlinear");
        qlinear.set_attr<int64_t>(op::attr::axis, 1);
        g.add_op(qlinear);

        // Op 1: oneDNN Dequantize, per-tensor, scale and zero point as attributes.
        const lt q(4, dt::u8, {4}, lt::layout_type::strided);
        const lt f(5, dt::f32, {4}, lt::layout_type::strided);
        op deq(1, op::kind::Dequantize, {q}, {f}, "deq");
        deq.set_attr<std::string>(op::attr::qtype, "per_tensor");
        deq.set_attr<std::vector<float>>(op::attr::scales, {0.5f});
        deq.set_attr<std::vector<int64_t>>(op::attr::zps, {128});
        g.add_op(deq);

        g.finalize();
        const std::vector<partition> parts = g.get_partitions();
        if (parts.size() != 2) {
            std::printf("expected 2 partitions, got %zu\n", parts.size());
            return 1;
        }

        // Inputs and the outputs computed by hand from y = saturate(rne(x / s) + zp) and
        // y = f32(x - zp) * s. Column c of x uses y_scale[c] and y_zero_point[c].
        const float nan = std::numeric_limits<float>::quiet_NaN();
        const std::vector<float> x_val {-3.f, 10.f, 0.3f, 1000.f, -600.f, nan};
        const std::vector<float> scale_val {2.f, 4.f, 0.25f};
        const std::vector<uint8_t> zp_val {128, 3, 0};
        const std::vector<uint8_t> y_want {
                126, // -3 / 2 = -1.5 -> -2 (ties to even), + 128
                5, // 10 / 4 = 2.5 -> 2, + 3 (rounding before the zero point; not 6)
                1, // 0.3f / 0.25 = 1.2000000477 -> 1, + 0
                255, // 1000 / 2 + 128 = 628 -> saturates to 255
                0, // -600 / 4 + 3 = -147 -> saturates to 0
                0, // NaN -> qmin (0 for u8), whatever the zero point
        };
        const std::vector<uint8_t> q_val {0, 127, 128, 255};
        const std::vector<float> f_want {-64.f, -0.5f, 0.f, 63.5f}; // (q - 128) * 0.5

        std::vector<uint8_t> y_out;
        std::vector<float> f_out;
        for (const partition &p : parts) {
            if (!p.is_supported()) {
                std::printf("partition %zu unsupported: %s\n", p.get_id(),
                        p.get_unsupported_reason().c_str());
                return 1;
            }
            // Compile for the ports as declared; `any` outputs come back strided.
            const compiled_partition cp
                    = p.compile(p.get_input_ports(), p.get_output_ports(), eng);
            std::printf("partition %zu (%s): backend %s, kernel %s\n", p.get_id(),
                    to_string(p.get_op_kinds()[0]), cp.get_backend_name().c_str(),
                    cp.get_kernel_name().c_str());

            // Tensors in the order of the compiled logical tensors.
            std::vector<tensor> ins, outs;
            for (const lt &t : cp.get_input_logical_tensors()) {
                void *h = nullptr;
                switch (t.get_id()) {
                    case 0: h = const_cast<float *>(x_val.data()); break;
                    case 1: h = const_cast<float *>(scale_val.data()); break;
                    case 2: h = const_cast<uint8_t *>(zp_val.data()); break;
                    case 4: h = const_cast<uint8_t *>(q_val.data()); break;
                }
                ins.emplace_back(t, eng, h);
            }
            for (const lt &t : cp.get_output_logical_tensors()) {
                const lt c = cp.query_logical_tensor(t.get_id()); // concrete shape + strides
                if (c.get_id() == 3) {
                    y_out.assign(c.get_mem_size(), 0);
                    outs.emplace_back(c, eng, y_out.data());
                } else {
                    f_out.assign(c.get_mem_size() / sizeof(float), 0.f);
                    outs.emplace_back(c, eng, f_out.data());
                }
            }
            cp.execute(strm, ins, outs);
            strm.wait();
        }

        for (size_t i = 0; i < y_want.size(); ++i) {
            const bool ok = i < y_out.size() && y_out[i] == y_want[i];
            std::printf("y[%zu] = %3d  expected %3d%s\n", i, i < y_out.size() ? y_out[i] : -1,
                    y_want[i], ok ? "" : "  MISMATCH");
            failures += ok ? 0 : 1;
        }
        for (size_t i = 0; i < f_want.size(); ++i) {
            const bool ok = i < f_out.size() && f_out[i] == f_want[i];
            std::printf("f[%zu] = %6.2f  expected %6.2f%s\n", i, i < f_out.size() ? f_out[i] : nan,
                    f_want[i], ok ? "" : "  MISMATCH");
            failures += ok ? 0 : 1;
        }
    } catch (const error &e) {
        std::printf("unexpected qgraph::error (%s): %s\n", to_string(e.status()), e.what());
        return 1;
    }

    // Schema rules are checked by add_op: axis 2 does not exist for a 2-D x.
    try {
        graph g(engine::kind::cpu);
        op bad(0, op::kind::QuantizeLinear,
                {lt(0, dt::f32, {2, 3}, lt::layout_type::strided),
                        lt(1, dt::f32, {3}, lt::layout_type::strided),
                        lt(2, dt::u8, {3}, lt::layout_type::strided)},
                {lt(3, dt::u8, lt::layout_type::any)}, "bad_axis");
        bad.set_attr<int64_t>(op::attr::axis, 2);
        g.add_op(bad);
        std::printf("add_op accepted axis 2 for a 2-D input\n");
        ++failures;
    } catch (const error &e) {
        std::printf("caught qgraph::error (%s): %s\n", to_string(e.status()), e.what());
        if (e.status() != status::invalid_graph_op) ++failures;
    }

    std::printf("%s\n", failures == 0 ? "PASSED" : "FAILED");
    return failures == 0 ? 0 : 1;
}
