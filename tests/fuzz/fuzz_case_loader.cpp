// libFuzzer target 1: bytes as a graph-case file, through the whole way a file takes in qgraph
// (tests/common/case_pipeline.hpp: parse, build, partition, compile, execute when small).
// A qgraph::error is the expected answer to bad input; anything else (another exception, a
// crash, a sanitizer report, a leak, a timeout) is a finding.

#include <cstddef>
#include <cstdint>
#include <string>

#include "common/case_pipeline.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    // Small execute budget: one fuzz input should cost milliseconds, whatever shapes it names.
    qtest::pipeline_limits lim;
    lim.max_exec_bytes = size_t(1) << 16;
    lim.max_partitions = 8;
    const std::string text(reinterpret_cast<const char *>(data), size);
    try {
        qtest::run_case_pipeline(text, "fuzz.json", lim, static_cast<uint32_t>(size));
    } catch (const qgraph::error &) {
        // The defined way to refuse an input.
    }
    return 0;
}
