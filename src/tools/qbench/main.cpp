// qbench: the benchdnn-style command line of qgraph (docs/cli.md).

#include <iostream>
#include <string>
#include <vector>

#include "tools/qbench/driver.hpp"
#include "tools/qbench/progress.hpp"

int main(int argc, char **argv) {
    const std::vector<std::string> args(argv + 1, argv + argc);
    return qgraph::qbench::qbench_main(
            args, std::cout, std::cerr, qgraph::qbench::stderr_is_terminal());
}
