// Every qgraph::error message is one line of at most 4096 characters without control
// characters (docs/reliability.md), whatever caller strings it quotes: NUL, newlines and
// terminal escapes are shown as \xNN, and a message too long keeps its start and the rule at
// its end around a marker.

#include <gtest/gtest.h>

#include <string>

#include "qgraph/qgraph.hpp"

namespace {

using qgraph::op;
using lt = qgraph::logical_tensor;
using dt = qgraph::data_type;

constexpr size_t kMaxMessage = 4096;

/// No byte below 0x20, no DEL, no UTF-8 encoded C1 control.
void expect_printable_line(const std::string &m) {
    EXPECT_LE(m.size(), kMaxMessage);
    for (size_t i = 0; i < m.size(); ++i) {
        const auto c = static_cast<unsigned char>(m[i]);
        EXPECT_FALSE(c < 0x20 || c == 0x7F) << "byte " << i << " = " << int(c);
        if (c == 0xC2 && i + 1 < m.size()) {
            EXPECT_GE(static_cast<unsigned char>(m[i + 1]), 0xA0u) << "C1 control at " << i;
        }
    }
}

/// The error add_op raises for an axis out of range on a QuantizeLinear named `name`.
std::string add_op_error(const std::string &name) {
    qgraph::graph g(qgraph::engine::kind::cpu);
    op bad(0, op::kind::QuantizeLinear,
            {lt(0, dt::f32, {2, 3}, lt::layout_type::strided),
                    lt(1, dt::f32, {3}, lt::layout_type::strided),
                    lt(2, dt::u8, {3}, lt::layout_type::strided)},
            {lt(3, dt::u8, lt::layout_type::any)}, name);
    bad.set_attr<int64_t>(op::attr::axis, 2);
    try {
        g.add_op(bad);
    } catch (const qgraph::error &e) {
        EXPECT_EQ(e.status(), qgraph::status::invalid_graph_op);
        return e.what();
    }
    ADD_FAILURE() << "add_op accepted axis 2";
    return "";
}

const std::string kRule = "attribute 'axis' = 2 is out of range [-2, 1] for input 0 (x) of rank 2";

TEST(ErrorMessages, ControlBytesInOpNamesAreEscaped) {
    const std::string name = std::string("a\0b", 3) + "\n\r\t\x1b[31mred\x7f\xc2\x9b" + "2J";
    const std::string m = add_op_error(name);
    expect_printable_line(m);
    // The NUL no longer ends the message: the rule after the name is still there.
    EXPECT_EQ(m,
            "QuantizeLinear 'a\\x00b\\x0a\\x0d\\x09\\x1b[31mred\\x7f\\xc2\\x9b2J' (id 0): " + kRule);
}

TEST(ErrorMessages, Utf8NamesStayReadableAndInvalidBytesAreEscaped) {
    const std::string m = add_op_error("caf\xc3\xa9 \xe2\x82\xac \xff\xc3 \xed\xa0\x80");
    expect_printable_line(m);
    EXPECT_EQ(m,
            "QuantizeLinear 'caf\xc3\xa9 \xe2\x82\xac \\xff\\xc3 \\xed\\xa0\\x80' (id 0): " + kRule);
}

TEST(ErrorMessages, HugeOpNameIsCutAndTheRuleKept) {
    const std::string m = add_op_error(std::string(5 << 20, 'n'));
    expect_printable_line(m);
    EXPECT_EQ(m.rfind("QuantizeLinear 'nnnn", 0), 0u) << m.substr(0, 100);
    EXPECT_NE(m.find("...["), std::string::npos);
    EXPECT_NE(m.find(" bytes cut]..."), std::string::npos);
    EXPECT_EQ(m.substr(m.size() - kRule.size()), kRule);
    // The marker counts exactly the bytes left out.
    const size_t open = m.find("...["), close = m.find(" bytes cut]...");
    const size_t cut = std::stoul(m.substr(open + 4, close - open - 4));
    const size_t kept = m.size() - (close + 14 - open);
    EXPECT_EQ(kept + cut, std::string("QuantizeLinear '' (id 0): ").size() + kRule.size()
                    + (5u << 20));
}

TEST(ErrorMessages, HugeNameOfEscapedBytesIsCutOnWholeEscapes) {
    const std::string m = add_op_error(std::string(100000, '\x1b'));
    expect_printable_line(m);
    EXPECT_EQ(m.substr(m.size() - kRule.size()), kRule);
    // Every backslash starts a whole \x1b.
    for (size_t i = m.find('\\'); i != std::string::npos; i = m.find('\\', i + 1))
        EXPECT_EQ(m.compare(i, 4, "\\x1b"), 0) << "at " << i;
}

TEST(ErrorMessages, EveryErrorIsSanitised) {
    // Built directly, and from other caller strings: a backend name, an attribute name.
    const qgraph::error e(qgraph::status::runtime_error, std::string("x\0\ny", 4));
    EXPECT_STREQ(e.what(), "x\\x00\\x0ay");
    try {
        qgraph::set_backend("evil\n\x1b]0;title\x07");
        ADD_FAILURE() << "set_backend accepted it";
    } catch (const qgraph::error &err) {
        expect_printable_line(err.what());
        EXPECT_NE(std::string(err.what()).find("evil\\x0a\\x1b]0;title\\x07"), std::string::npos)
                << err.what();
    }
    op o(0, op::kind::Quantize, {lt(0, dt::f32, {2}, lt::layout_type::strided)},
            {lt(1, dt::u8, {2}, lt::layout_type::strided)}, "q");
    o.set_attr(op::attr::scales, std::vector<float> {1.f});
    o.set_attr(std::string(1 << 20, '\n'), int64_t(1));
    qgraph::graph g(qgraph::engine::kind::cpu);
    try {
        g.add_op(o);
        ADD_FAILURE() << "add_op accepted an unknown attribute";
    } catch (const qgraph::error &err) {
        expect_printable_line(err.what());
    }
}

} // namespace
