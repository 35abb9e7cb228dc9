#ifndef QGRAPH_TOOLS_QBENCH_OPTIONS_HPP
#define QGRAPH_TOOLS_QBENCH_OPTIONS_HPP

// qbench's knobs: the options that set how the following --case (or problem shape) runs
// (docs/cli.md). Knobs keep their value until changed or until --reset. A knob that takes a
// comma list (--threads=1,2) runs every combination of the lists (batch.hpp expands them);
// `knobs` holds one combination.

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace qgraph {
namespace qbench {

/// A bad command line or batch file: unknown option, bad value, missing file. main() prints
/// "qbench: <what()>" on stderr and exits with exit_usage before running anything.
class usage_error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// C: correctness (run and compare). P: performance (time, compare with ref once).
enum class mode { correctness, performance };

/// How --mode=P prints results: benchdnn's perf lines, or one CSV row per problem and backend.
enum class perf_template { text, csv };

/// --fill: the pseudo-random part of float sources (fill.hpp). grid, the default: a 0.25 grid
/// (exact ties after a division, saturation). normal: near a standard normal distribution, as
/// activations are (values below a type's normals, few ties), for timing kernels whose speed
/// depends on the data.
enum class fill_dist { grid, normal };

/// The pseudo-backend that runs plain oneDNN the way an integrator would (--mode=P only).
constexpr const char *onednn_baseline_name = "onednn";

/// The one-op shorthand (`--op=Quantize ... 1x64x56x56`): what a problem shape builds.
struct op_knobs {
    std::string op = "Quantize";
    std::string sdt; ///< "" = the op's usual source type (f32, or u8 for dequantizing ops)
    std::string ddt; ///< "" = the op's usual destination type (u8, or f32)
    std::string qtype = "per_tensor"; ///< per_tensor | per_channel
    int64_t axis = 1;
    /// none, or the zero point's type: any quantized type (s8, u8, s32, s16, u16, s4, u4, s2,
    /// u2, the float8 types, f4_e2m1); a zero-point input of that type for runtime ops (float
    /// ones hold 0), nonzero static zps for Quantize / Dequantize, whose attribute has no type.
    std::string zp = "none";
    float scale = 0.5f; ///< channel c gets scale * 2^(c % 4) (exact reciprocals for 2^k)
    /// --group=AxB: the group (block) shape over the last two dims; empty = not grouped.
    std::vector<int64_t> group;
    std::string scale_dt = "f32"; ///< the scale input's type: f32 | f16 | bf16 | e8m0
    int saturate = -1; ///< QuantizeLinear's 'saturate' (0 or 1); -1 = not set
    int64_t opset = 0; ///< ONNX ops' 'opset' attribute; 0 = not set (the library's newest)

    bool operator==(const op_knobs &o) const {
        return op == o.op && sdt == o.sdt && ddt == o.ddt && qtype == o.qtype && axis == o.axis
                && zp == o.zp && scale == o.scale && group == o.group
                && scale_dt == o.scale_dt && saturate == o.saturate && opset == o.opset;
    }
};

struct knobs {
    qbench::mode mode = mode::correctness;
    /// "" = auto: the library picks the best backend that accepts each partition. In --mode=C
    /// a job has exactly one; in --mode=P this is the side-by-side list.
    std::vector<std::string> backends {""};
    /// graph::get_partitions' policies, "fusion" or "debug": in --mode=P each backend runs
    /// under each, side by side (the gain of fusion is the ratio of the two); in --mode=C
    /// each is a case of its own.
    std::vector<std::string> policies {"fusion"};
    /// Mixed into the fill's random generator; cases with "data" ignore it.
    uint64_t seed = 0;
    fill_dist fill = fill_dist::grid;
    /// 0: one line per case; 1: adds the backend and kernel of every partition.
    int verbose = 0;
    /// qgraph::set_num_threads for the job (0 = the library's default).
    int threads = 0;
    /// --in-shapes / --op-attrs as written ("" = none); overrides.hpp applies them.
    std::string in_shapes;
    std::string op_attrs;
    /// 0 = no check; else the case must have exactly this many partitions.
    int expected_n_partitions = 0;
    // --mode=P only.
    double max_ms_per_prb = 200;
    uint64_t fix_times_per_prb = 0; ///< 0 = run until max_ms_per_prb
    bool cold_cache = false;
    bool roofline = true; ///< time the roofline loop beside the backends
    perf_template perf_tmpl = perf_template::text;
    op_knobs op;

    bool operator==(const knobs &o) const {
        return mode == o.mode && backends == o.backends && policies == o.policies
                && seed == o.seed && fill == o.fill
                && verbose == o.verbose && threads == o.threads && in_shapes == o.in_shapes
                && op_attrs == o.op_attrs && expected_n_partitions == o.expected_n_partitions
                && max_ms_per_prb == o.max_ms_per_prb
                && fix_times_per_prb == o.fix_times_per_prb && cold_cache == o.cold_cache && roofline == o.roofline
                && perf_tmpl == o.perf_tmpl && op == o.op;
    }
    bool operator!=(const knobs &o) const { return !(*this == o); }
};

/// The built-in defaults; the backend starts as qgraph::get_backend() (QGRAPH_BACKEND).
knobs default_knobs();

/// Options whose value may be a comma list that runs every combination (--backend is a list
/// too, but side by side in --mode=P; see batch.cpp).
bool is_list_knob(const std::string &name);

/// If `arg` is a knob, applies it to `k` and returns true; returns false for any other
/// argument. Takes one value (no comma list) except --backend. Throws usage_error for a knob
/// with a missing or bad value.
bool parse_knob(const std::string &arg, knobs &k);

/// "C" / "P".
const char *to_string(mode m);
const char *to_string(fill_dist d);
/// The backend as written on a command line: the name, or "auto" for "".
std::string backend_arg(const std::string &backend);
/// The backend list as written: "auto,dnnl".
std::string backends_arg(const std::vector<std::string> &backends);

/// The knobs that define one problem, as options, without the mode and backends:
/// "--threads=2 --in-shapes=0:4x4 " (each followed by a space; "" when all are defaults).
std::string problem_knob_args(const knobs &k);
/// The op shorthand as options: "--op=Quantize --sdt=f32 --ddt=u8 --qtype=per_tensor"; the
/// knobs of issue 12 (--group, --scale-dt, --saturate, --opset) only where they are set.
std::string op_knob_args(const op_knobs &o);

/// The text --help prints.
std::string help_text();

} // namespace qbench
} // namespace qgraph

#endif
