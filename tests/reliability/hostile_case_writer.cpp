// Writes every hostile case (hostile_cases.cpp) to DIR/<name>.json and prints one line per
// case, "<file> TAB <expected reason fragment> TAB <known bug or ->", for
// run_qbench_hostile.sh. Big cases are
// generated here, at test time, so no large file is committed.

#include <cstdio>
#include <fstream>
#include <string>

#include "reliability/hostile_cases.hpp"

int main(int argc, char **argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: hostile_case_writer DIR\n");
        return 2;
    }
    const std::string dir = argv[1];
    for (const qrel::hostile_case &c : qrel::hostile_cases()) {
        const std::string path = dir + "/" + c.name + ".json";
        std::ofstream out(path, std::ios::binary);
        out << c.text();
        if (!out) {
            std::fprintf(stderr, "hostile_case_writer: cannot write %s\n", path.c_str());
            return 1;
        }
        const std::string reason = c.qbench_reason.empty() ? c.fragment : c.qbench_reason;
        std::printf("%s\t%s\t%s\n", path.c_str(), reason.c_str(),
                c.known_bug.empty() ? "-" : c.known_bug.c_str());
    }
    return 0;
}
