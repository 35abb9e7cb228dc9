#include "tools/qbench/options.hpp"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "qgraph/qgraph.hpp"
#include "tools/qbench/overrides.hpp"

namespace qgraph {
namespace qbench {

namespace {

/// The value of `--name=value` when `arg` is option `name`; nullptr otherwise. Throws for
/// `--name` without "=value".
const char *option_value(const std::string &arg, const char *name) {
    const std::string prefix = std::string("--") + name;
    if (arg.compare(0, prefix.size(), prefix) != 0) return nullptr;
    if (arg.size() == prefix.size())
        throw usage_error("option " + prefix + " needs a value: " + prefix + "=VALUE");
    if (arg[prefix.size()] != '=') return nullptr; // e.g. --modes
    return arg.c_str() + prefix.size() + 1;
}

[[noreturn]] void bad_value(const std::string &opt, const std::string &v, const std::string &want) {
    throw usage_error("bad value '" + v + "' for --" + opt + ": expected " + want);
}

uint64_t parse_unsigned(const std::string &opt, const char *text) {
    if (*text == '\0' || *text == '-' || *text == '+')
        bad_value(opt, text, "a non-negative integer");
    errno = 0;
    char *end = nullptr;
    const unsigned long long v = std::strtoull(text, &end, 10);
    if (*end != '\0' || errno == ERANGE) bad_value(opt, text, "a non-negative integer");
    return v;
}

int64_t parse_signed(const std::string &opt, const char *text) {
    errno = 0;
    char *end = nullptr;
    const long long v = std::strtoll(text, &end, 10);
    if (*text == '\0' || *end != '\0' || errno == ERANGE) bad_value(opt, text, "an integer");
    return v;
}

double parse_number(const std::string &opt, const char *text, const std::string &want) {
    char *end = nullptr;
    const double v = std::strtod(text, &end);
    if (*text == '\0' || *end != '\0' || !std::isfinite(v)) bad_value(opt, text, want);
    return v;
}

std::string join(const std::vector<std::string> &v, const char *sep) {
    std::string s;
    for (size_t i = 0; i < v.size(); ++i) s += (i ? sep : "") + v[i];
    return s;
}

std::vector<std::string> split_commas(const std::string &s) {
    std::vector<std::string> parts;
    size_t start = 0;
    while (true) {
        const size_t at = s.find(',', start);
        parts.push_back(s.substr(start, at == std::string::npos ? std::string::npos : at - start));
        if (at == std::string::npos) return parts;
        start = at + 1;
    }
}

const std::vector<std::string> &op_names() {
    static const std::vector<std::string> names {"Quantize", "Dequantize", "DynamicQuantize",
            "DynamicDequantize", "QuantizeLinear", "DequantizeLinear", "DynamicQuantizeLinear"};
    return names;
}

/// Every type a zero point may have in some op (the op's schema decides which it takes).
const std::vector<std::string> &zp_types() {
    static const std::vector<std::string> names {"s8", "u8", "s32", "s16", "u16", "s4", "u4",
            "s2", "u2", "f8_e4m3", "f8_e4m3fnuz", "f8_e5m2", "f8_e5m2fnuz", "f4_e2m1"};
    return names;
}

/// "1x128" -> {1, 128}: two sizes of at least 1.
std::vector<int64_t> parse_group(const std::string &s) {
    const std::string want = "AxB, the group shape over the last two dims (e.g. 1x128), or none";
    const size_t x = s.find('x');
    if (x == std::string::npos) bad_value("group", s, want);
    std::vector<int64_t> g;
    for (const std::string &part : {s.substr(0, x), s.substr(x + 1)}) {
        if (part.empty() || part.find_first_not_of("0123456789") != std::string::npos)
            bad_value("group", s, want);
        errno = 0;
        const unsigned long long v = std::strtoull(part.c_str(), nullptr, 10);
        if (v < 1 || errno == ERANGE || v > 0x7fffffffffffffffull) bad_value("group", s, want);
        g.push_back(static_cast<int64_t>(v));
    }
    return g;
}

std::string format_number(double v) {
    char buf[64];
    std::snprintf(buf, sizeof(buf), "%.9g", v);
    return buf;
}

} // namespace

knobs default_knobs() {
    knobs k;
    k.backends = {qgraph::get_backend()};
    return k;
}

bool is_list_knob(const std::string &name) {
    for (const char *n : {"threads", "in-shapes", "op-attrs", "seed", "fill", "op", "sdt", "ddt",
                 "qtype", "axis", "zp", "scale", "group", "scale-dt", "saturate", "opset"})
        if (name == n) return true;
    return false;
}

bool parse_knob(const std::string &arg, knobs &k) {
    if (const char *v = option_value(arg, "mode")) {
        const std::string s = v;
        if (s == "C" || s == "c")
            k.mode = mode::correctness;
        else if (s == "P" || s == "p")
            k.mode = mode::performance;
        else
            bad_value("mode", s, "C (correctness) or P (performance)");
        return true;
    }
    if (const char *v = option_value(arg, "backend")) {
        const std::vector<std::string> names = qgraph::get_backend_names();
        std::vector<std::string> list;
        for (const std::string &s : split_commas(v)) {
            bool known = s == "auto" || s == onednn_baseline_name;
            for (const auto &n : names) known = known || n == s;
            if (!known)
                bad_value("backend", v,
                        "a comma list of auto|" + join(names, "|") + "|" + onednn_baseline_name
                                + ("" == s ? std::string(" (an empty name)")
                                           : " ('" + s + "' is not a backend of this build)"));
            list.push_back(s == "auto" ? "" : s);
        }
        k.backends = list;
        return true;
    }
    if (const char *v = option_value(arg, "policy")) {
        std::vector<std::string> list;
        for (const std::string &s : split_commas(v)) {
            if (s != "fusion" && s != "debug")
                bad_value("policy", v, "a comma list of fusion|debug");
            list.push_back(s);
        }
        k.policies = list;
        return true;
    }
    if (const char *v = option_value(arg, "seed")) {
        k.seed = parse_unsigned("seed", v);
        return true;
    }
    if (const char *v = option_value(arg, "fill")) {
        const std::string s = v;
        if (s == "grid")
            k.fill = fill_dist::grid;
        else if (s == "normal")
            k.fill = fill_dist::normal;
        else
            bad_value("fill", s, "grid (a 0.25 grid, the default) or normal (near N(0, 1))");
        return true;
    }
    if (const char *v = option_value(arg, "verbose")) {
        const uint64_t level = parse_unsigned("verbose", v);
        if (level > 2) bad_value("verbose", v, "0, 1 or 2");
        k.verbose = static_cast<int>(level);
        return true;
    }
    if (const char *v = option_value(arg, "threads")) {
        const uint64_t n = parse_unsigned("threads", v);
        if (n > 4096) bad_value("threads", v, "a thread count in [0, 4096] (0: the default)");
        k.threads = static_cast<int>(n);
        return true;
    }
    if (const char *v = option_value(arg, "in-shapes")) {
        parse_in_shapes(v); // checks the syntax now, so a typo stops qbench before it runs
        k.in_shapes = v;
        return true;
    }
    if (const char *v = option_value(arg, "op-attrs")) {
        parse_op_attrs(v);
        k.op_attrs = v;
        return true;
    }
    if (const char *v = option_value(arg, "expected-n-partitions")) {
        const uint64_t n = parse_unsigned("expected-n-partitions", v);
        if (n > 1000000) bad_value("expected-n-partitions", v, "a partition count");
        k.expected_n_partitions = static_cast<int>(n);
        return true;
    }
    if (const char *v = option_value(arg, "max-ms-per-prb")) {
        const double ms = parse_number("max-ms-per-prb", v, "a positive number of milliseconds");
        if (!(ms > 0)) bad_value("max-ms-per-prb", v, "a positive number of milliseconds");
        k.max_ms_per_prb = ms;
        return true;
    }
    if (const char *v = option_value(arg, "fix-times-per-prb")) {
        k.fix_times_per_prb = parse_unsigned("fix-times-per-prb", v);
        return true;
    }
    if (arg == "--cold-cache") {
        k.cold_cache = true;
        return true;
    }
    if (arg.compare(0, 13, "--cold-cache=") == 0) {
        const std::string s = arg.substr(13);
        if (s == "true" || s == "on" || s == "all")
            k.cold_cache = true;
        else if (s == "false" || s == "off" || s == "none")
            k.cold_cache = false;
        else
            bad_value("cold-cache", s, "all|none (or on|off, true|false)");
        return true;
    }
    if (const char *v = option_value(arg, "roofline")) {
        const std::string s = v;
        if (s == "on" || s == "true")
            k.roofline = true;
        else if (s == "off" || s == "false")
            k.roofline = false;
        else
            bad_value("roofline", s, "on|off");
        return true;
    }
    if (const char *v = option_value(arg, "perf-template")) {
        const std::string s = v;
        if (s == "csv")
            k.perf_tmpl = perf_template::csv;
        else if (s == "def" || s == "default" || s == "text")
            k.perf_tmpl = perf_template::text;
        else
            bad_value("perf-template", s, "def (perf lines) or csv");
        return true;
    }
    // The op shorthand.
    if (const char *v = option_value(arg, "op")) {
        const std::string s = v;
        bool known = false;
        for (const auto &n : op_names()) known = known || n == s;
        if (!known) bad_value("op", s, join(op_names(), "|"));
        k.op.op = s;
        return true;
    }
    for (const char *dt_opt : {"sdt", "ddt"})
        if (const char *v = option_value(arg, dt_opt)) {
            try {
                qgraph::data_type_from_string(v);
            } catch (const qgraph::error &) {
                bad_value(dt_opt, v, "a data type name (f32, bf16, f16, s32, s8, u8, ...)");
            }
            (std::string(dt_opt) == "sdt" ? k.op.sdt : k.op.ddt) = v;
            return true;
        }
    if (const char *v = option_value(arg, "qtype")) {
        const std::string s = v;
        if (s != "per_tensor" && s != "per_channel")
            bad_value("qtype", s, "per_tensor or per_channel");
        k.op.qtype = s;
        return true;
    }
    if (const char *v = option_value(arg, "axis")) {
        k.op.axis = parse_signed("axis", v);
        return true;
    }
    if (const char *v = option_value(arg, "zp")) {
        const std::string s = v;
        bool known = s == "none";
        for (const auto &n : zp_types()) known = known || n == s;
        if (!known) bad_value("zp", s, "none|" + join(zp_types(), "|"));
        k.op.zp = s;
        return true;
    }
    if (const char *v = option_value(arg, "group")) {
        k.op.group = std::string(v) == "none" ? std::vector<int64_t> {} : parse_group(v);
        return true;
    }
    if (const char *v = option_value(arg, "scale-dt")) {
        const std::string s = v;
        if (s != "f32" && s != "f16" && s != "bf16" && s != "e8m0")
            bad_value("scale-dt", s, "f32, f16, bf16 or e8m0");
        k.op.scale_dt = s;
        return true;
    }
    if (const char *v = option_value(arg, "saturate")) {
        const std::string s = v;
        if (s != "0" && s != "1") bad_value("saturate", s, "0 or 1");
        k.op.saturate = s == "1";
        return true;
    }
    if (const char *v = option_value(arg, "opset")) {
        const uint64_t n = parse_unsigned("opset", v);
        if (n < 1 || n > 1000) bad_value("opset", v, "an ONNX opset number (10 to 25)");
        k.op.opset = static_cast<int64_t>(n);
        return true;
    }
    if (const char *v = option_value(arg, "scale")) {
        k.op.scale = static_cast<float>(parse_number("scale", v, "a finite number"));
        return true;
    }
    return false;
}

const char *to_string(mode m) { return m == mode::performance ? "P" : "C"; }

const char *to_string(fill_dist d) { return d == fill_dist::normal ? "normal" : "grid"; }

std::string backend_arg(const std::string &backend) {
    return backend.empty() ? "auto" : backend;
}

std::string backends_arg(const std::vector<std::string> &backends) {
    std::string s;
    for (size_t i = 0; i < backends.size(); ++i) s += (i ? "," : "") + backend_arg(backends[i]);
    return s;
}

std::string problem_knob_args(const knobs &k) {
    std::string s;
    if (k.threads != 0) s += "--threads=" + std::to_string(k.threads) + " ";
    if (k.fill != fill_dist::grid) s += std::string("--fill=") + to_string(k.fill) + " ";
    if (!k.in_shapes.empty()) s += "--in-shapes=" + k.in_shapes + " ";
    if (!k.op_attrs.empty()) s += "--op-attrs=" + k.op_attrs + " ";
    if (k.expected_n_partitions != 0)
        s += "--expected-n-partitions=" + std::to_string(k.expected_n_partitions) + " ";
    return s;
}

std::string op_knob_args(const op_knobs &o) {
    std::string s = "--op=" + o.op;
    if (!o.sdt.empty()) s += " --sdt=" + o.sdt;
    if (!o.ddt.empty()) s += " --ddt=" + o.ddt;
    if (o.op != "DynamicQuantizeLinear") {
        s += " --qtype=" + o.qtype;
        if (o.qtype == "per_channel") s += " --axis=" + std::to_string(o.axis);
        s += " --zp=" + o.zp + " --scale=" + format_number(o.scale);
    }
    if (!o.group.empty())
        s += " --group=" + std::to_string(o.group[0]) + "x" + std::to_string(o.group[1]);
    if (o.scale_dt != "f32") s += " --scale-dt=" + o.scale_dt;
    if (o.saturate >= 0) s += " --saturate=" + std::to_string(o.saturate);
    if (o.opset != 0) s += " --opset=" + std::to_string(o.opset);
    return s;
}

std::string help_text() {
    std::string backends = "auto";
    for (const auto &n : qgraph::get_backend_names()) backends += "|" + n;
    backends += std::string("|") + onednn_baseline_name;
    return "Usage: qbench [OPTION]... {--case=FILE | --batch=FILE | SHAPE}...\n"
           "\n"
           "Runs qgraph graph cases (oneDNN graph JSON, optionally with \"data\") or one-op\n"
           "problems, and prints one line per case and a summary, the way oneDNN's benchdnn\n"
           "--graph does. Arguments are read left to right: knobs apply to every later case\n"
           "until changed or --reset (a knob that no case follows is an error). A knob given\n"
           "a comma list (--threads=1,2) runs every combination of its values with the other\n"
           "lists.\n"
           "\n"
           "Cases and batches:\n"
           "  --case=FILE       run one graph case with the current knobs.\n"
           "  SHAPE             run the op shorthand (--op=... below) on a source of this shape:\n"
           "                    dims separated by 'x' (1x64x56x56), or 'scalar'.\n"
           "  --batch=FILE      read more arguments from FILE: whitespace-separated, '#' starts\n"
           "                    a comment to the end of the line; --case and --batch paths in\n"
           "                    it are relative to FILE's directory. Batches may nest.\n"
           "  --reset           set every knob back to the value it had when the current batch\n"
           "                    file was entered (on the command line: the defaults).\n"
           "\n"
           "Knobs:\n"
           "  --mode=C          correctness (default): cases with \"data\" are compared bit for\n"
           "                    bit with their expected values; other cases are filled the\n"
           "                    benchdnn way, run on the ref backend and on --backend, and the\n"
           "                    outputs compared bit for bit (NaN matches NaN).\n"
           "  --mode=P          performance: compile once, check the result against ref once\n"
           "                    (a wrong result is FAILED), then time execute: warm-up, then\n"
           "                    runs interleaved between the backends and a roofline loop;\n"
           "                    prints a perf line per backend (see Output).\n"
           "  --backend=LIST    " + backends + ", comma-separated\n"
           "                    (default: QGRAPH_BACKEND, else auto). auto lets the library pick\n"
           "                    per partition; a name forces that backend (qgraph::set_backend).\n"
           "                    --mode=P runs the list side by side and prints time ratios;\n"
           "                    --mode=C runs each backend as its own case. onednn (--mode=P\n"
           "                    only) is plain oneDNN 2.6 used directly as an integrator would,\n"
           "                    not through qgraph: its mismatches with ref are reported as\n"
           "                    \"inexact\" and do not fail the run.\n"
           "  --policy=LIST     fusion|debug, comma-separated (default: fusion): the\n"
           "                    partition policy of graph::get_partitions. --mode=P runs every\n"
           "                    backend under each side by side, named backend/policy, so\n"
           "                    --policy=fusion,debug prints the gain of fusion as a ratio;\n"
           "                    --mode=C runs each policy as its own case.\n"
           "  --seed=N          seed mixed into the random fill (default 0).\n"
           "  --fill=grid|normal  the random part of float sources: a 0.25 grid (default) or\n"
           "                    near a standard normal distribution (activation-like data).\n"
           "  --verbose=N       0 (default): one line per case; 1: adds the backend and kernel\n"
           "                    of every partition; 2: also library verbose (QGRAPH_VERBOSE=2).\n"
           "  --threads=N       qgraph::set_num_threads(N) for the case (also oneDNN's OpenMP\n"
           "                    threads and the roofline's); 0 (default): the library default.\n"
           "  --in-shapes=ID:AxBxC[+ID:AxBxC...]\n"
           "                    give logical tensor ID this shape (dense strides); the shapes\n"
           "                    the ops produce are inferred again.\n"
           "  --op-attrs=OPID:NAME:VALUE[*OPID:NAME:VALUE...]\n"
           "                    set attribute NAME of op OPID; vector values are separated by\n"
           "                    'x' (0:scales:0.5x0.25).\n"
           "  --expected-n-partitions=N\n"
           "                    the case must have N partitions, else it FAILS (0: no check,\n"
           "                    default).\n"
           "\n"
           "Performance knobs (--mode=P):\n"
           "  --max-ms-per-prb=MS   time budget of the timed runs of one problem (all backends\n"
           "                    together; default 200). At least 5 rounds run.\n"
           "  --fix-times-per-prb=N  exactly N timed rounds instead (0: use the budget).\n"
           "  --cold-cache[=all|none]  evict the caches before every timed run by sweeping a\n"
           "                    buffer twice the last-level cache (untimed); each run is then\n"
           "                    timed alone.\n"
           "  --roofline=on|off  on (default): time the roofline loop in the same rounds;\n"
           "                    off: the backends alone, e.g. against an external limit probe\n"
           "                    whose buffers the loop's own would evict from the caches.\n"
           "  --perf-template=def|csv  def (default): perf, compile and ratio lines;\n"
           "                    csv: a header and one row per problem and backend on stdout\n"
           "                    (case lines and the summary then go to stderr).\n"
           "  --sweep=MIN:MAX   instead of cases: time the op shorthand over 1-D sizes from MIN\n"
           "                    to MAX elements (K, M, G suffixes; x4 steps) on every --backend\n"
           "                    and the roofline; writes --sweep-out=PREFIX.csv, PREFIX.gp and,\n"
           "                    when gnuplot is installed, PREFIX.svg (default PREFIX:\n"
           "                    perf_sweep; --sweep-out goes before its --sweep).\n"
           "\n"
           "Op shorthand (the problem a SHAPE argument builds):\n"
           "  --op=KIND         Quantize (default), Dequantize, DynamicQuantize,\n"
           "                    DynamicDequantize, QuantizeLinear, DequantizeLinear,\n"
           "                    DynamicQuantizeLinear. Quantize and Dequantize take static\n"
           "                    scales (attributes); the others take them at run time (inputs).\n"
           "  --sdt=DT --ddt=DT source and destination types (default f32 -> u8 for quantizing\n"
           "                    ops, u8 -> f32 for dequantizing ones).\n"
           "  --qtype=per_tensor|per_channel   granularity (default per_tensor).\n"
           "  --axis=N          the channel axis of per_channel (default 1; negative from the end).\n"
           "  --zp=none|TYPE    no zero point (default), or a zero point of TYPE: s8, u8, s32,\n"
           "                    s16, u16, s4, u4, s2, u2, f8_e4m3, f8_e4m3fnuz, f8_e5m2,\n"
           "                    f8_e5m2fnuz, f4_e2m1 (a runtime input, float ones hold 0; static\n"
           "                    nonzero zps for Quantize / Dequantize). An ONNX op's quantized\n"
           "                    side defaults to the zero point's type.\n"
           "  --scale=F         scale of channel (or group) c: F * 2^(c % 4) (default 0.5).\n"
           "  --group=AxB|none  groups of AxB over the last two dims (default none): ONNX ops\n"
           "                    get axis and block_size (one of A, B must be 1),\n"
           "                    DynamicDequantize qtype=per_group and group_shape.\n"
           "  --scale-dt=f32|f16|bf16|e8m0  the scale input's type (default f32); the\n"
           "                    destination of DequantizeLinear / DynamicDequantize defaults to\n"
           "                    it (f32 for e8m0, given by output_dtype).\n"
           "  --saturate=0|1    QuantizeLinear's saturate (to a float8 type; default: unset).\n"
           "  --opset=N         ONNX ops' opset attribute (default: unset, the newest).\n"
           "\n"
           "Other:\n"
           "  --help            print this help and exit.\n"
           "\n"
           "Output (--mode=C): \"N:STATE (T ms) __REPRO: ARGS\" per case, STATE one of PASSED,\n"
           "FAILED, SKIPPED, UNIMPLEMENTED, INVALID_ARGUMENTS; a non-passing case adds\n"
           "\"    reason: ...\" lines. Then \"tests:N passed:N skipped:N mistrusted:N\n"
           "unimplemented:N invalid_arguments:N failed:N listed:N\".\n"
           "Output (--mode=P), per case and backend, before the case line:\n"
           "  perf,cpu,PROBLEM,MIN_MS,AVG_MS,MEDIAN_MS,GB/s,Gelem/s,ROOFLINE%,BACKEND,KERNEL\n"
           "  compile,cpu,PROBLEM,BACKEND,FRESH_US,CACHE_HIT_US  (medians: a compile that\n"
           "                    generates code with the cache off, and a cache hit)\n"
           "  ratio,cpu,PROBLEM,NAME=T/T0,...   median time over the first backend's\n"
           "GB/s counts bytes read and written; ROOFLINE% is the time of a plain loop that reads\n"
           "the source bytes and writes the destination bytes, over the backend's time.\n"
           "A backend that rejects a problem prints \"    BACKEND: unimplemented: REASON\".\n"
           "A progress line \"[i/N] PROBLEM\" goes to stderr when it is a terminal.\n"
           "\n"
           "Exit status: 0 when no case FAILED or had INVALID_ARGUMENTS; 1 otherwise;\n"
           "2 for a bad command line or batch file (nothing is run).\n";
}

} // namespace qbench
} // namespace qgraph
