#ifndef QGRAPH_TESTS_QBENCH_TEMP_FILES_HPP
#define QGRAPH_TESTS_QBENCH_TEMP_FILES_HPP

// A scratch directory for batch and case files, removed with everything in it at the end.

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

namespace qbench_test {

class temp_files {
public:
    temp_files() {
        std::string tmpl = (std::filesystem::temp_directory_path() / "qbench_test_XXXXXX").string();
        if (!mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
        dir_ = tmpl;
    }
    ~temp_files() {
        std::error_code ec;
        std::filesystem::remove_all(dir_, ec);
    }
    temp_files(const temp_files &) = delete;
    temp_files &operator=(const temp_files &) = delete;

    const std::string &dir() const { return dir_; }

    /// Writes `text` to dir()/rel (creating sub-directories) and returns the full path.
    std::string write(const std::string &rel, const std::string &text) const {
        const std::filesystem::path p = std::filesystem::path(dir_) / rel;
        std::filesystem::create_directories(p.parent_path());
        std::ofstream(p) << text;
        return p.string();
    }

private:
    std::string dir_;
};

} // namespace qbench_test

#endif
