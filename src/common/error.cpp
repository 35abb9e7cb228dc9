#include "qgraph/error.hpp"

#include <cstdio>

namespace qgraph {

const char *to_string(status s) {
    switch (s) {
        case status::success: return "success";
        case status::out_of_memory: return "out_of_memory";
        case status::invalid_arguments: return "invalid_arguments";
        case status::unimplemented: return "unimplemented";
        case status::invalid_graph: return "invalid_graph";
        case status::invalid_graph_op: return "invalid_graph_op";
        case status::invalid_shape: return "invalid_shape";
        case status::invalid_data_type: return "invalid_data_type";
        case status::runtime_error: return "runtime_error";
    }
    return "unknown_status";
}

namespace {

// Messages quote caller strings (op names, attribute names and values, backend names) as they
// were given. docs/reliability.md promises what() is one line of at most kMaxMessage
// characters without control characters, so the rule is enforced here, for every error:
// a NUL would truncate what(), a newline or an escape sequence would forge log lines or drive
// the caller's terminal, and a 5 MB op name would make a 5 MB message.
constexpr size_t kMaxMessage = 4096;
// Characters kept before the cut; the rest of the budget keeps the end of the message, which
// is where the rule broken is stated.
constexpr size_t kHead = 1024;

/// Length of the well-formed UTF-8 character at p[0..n), other than a C1 control
/// (U+0080..U+009F, which terminals obey like ESC sequences); 0 when the byte must be escaped.
size_t printable_char_len(const unsigned char *p, size_t n) {
    const unsigned char c = p[0];
    if (c >= 0x20 && c < 0x7F) return 1;
    size_t len;
    unsigned char lo = 0x80, hi = 0xBF; // allowed range of the second byte
    if (c >= 0xC2 && c <= 0xDF) {
        len = 2;
        if (c == 0xC2) lo = 0xA0; // U+0080..U+009F: C1 controls
    } else if (c >= 0xE0 && c <= 0xEF) {
        len = 3;
        if (c == 0xE0) lo = 0xA0; // overlong
        if (c == 0xED) hi = 0x9F; // surrogates
    } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4;
        if (c == 0xF0) lo = 0x90; // overlong
        if (c == 0xF4) hi = 0x8F; // beyond U+10FFFF
    } else {
        return 0; // ASCII control, DEL, stray continuation byte, invalid lead byte
    }
    if (n < len || p[1] < lo || p[1] > hi) return 0;
    for (size_t i = 2; i < len; ++i)
        if (p[i] < 0x80 || p[i] > 0xBF) return 0;
    return len;
}

/// Appends the character at s[i] (or `\xNN` for a byte that is not printable) and returns
/// the index after it.
size_t append_char(std::string &out, const std::string &s, size_t i) {
    const auto *p = reinterpret_cast<const unsigned char *>(s.data()) + i;
    const size_t len = printable_char_len(p, s.size() - i);
    if (len != 0) {
        out.append(s, i, len);
        return i + len;
    }
    char esc[5];
    std::snprintf(esc, sizeof esc, "\\x%02x", p[0]);
    out += esc;
    return i + 1;
}

std::string escaped(const std::string &s, size_t from, size_t to) {
    std::string out;
    for (size_t i = from; i < to;) i = append_char(out, s, i);
    return out;
}

/// One printable line of at most kMaxMessage characters: control bytes escaped, and when
/// too long, the middle replaced by a marker that says how many bytes were cut.
std::string sanitized(const std::string &m) {
    if (m.size() <= kMaxMessage) {
        std::string out = escaped(m, 0, m.size());
        if (out.size() <= kMaxMessage) return out;
    }
    std::string head;
    size_t i = 0;
    while (i < m.size() && head.size() + 4 <= kHead) i = append_char(head, m, i);
    // The marker is at most 40 characters; the tail gets what is left.
    const size_t tail_budget = kMaxMessage - head.size() - 40;
    size_t j = m.size() > i + tail_budget ? m.size() - tail_budget : i;
    // Start on a character boundary: skip continuation bytes of a character that is cut.
    for (int k = 0; k < 3 && j < m.size() && (static_cast<unsigned char>(m[j]) & 0xC0) == 0x80;
            ++k)
        ++j;
    std::string tail = escaped(m, j, m.size());
    // Escapes may have made the tail longer than its budget: drop characters from its front.
    while (tail.size() > tail_budget) {
        const size_t len = printable_char_len(reinterpret_cast<const unsigned char *>(m.data()) + j,
                m.size() - j);
        j += len ? len : 1;
        tail.erase(0, len ? len : 4);
    }
    return head + "...[" + std::to_string(j - i) + " bytes cut]..." + tail;
}

} // namespace

error::error(qgraph::status s, std::string message)
    : status_(s), message_(sanitized(message)) {}

} // namespace qgraph
