# Sanitizer builds (docs/reliability.md). Included once from the top-level CMakeLists.txt,
# before any target, so every target (library, tools, tests, fuzzers) is instrumented alike:
#
#   cmake -B build-asan -DQGRAPH_SANITIZE="address;undefined"
#   cmake -B build-tsan -DQGRAPH_SANITIZE=thread
#
# Works with g++ (the CI's sanitizer builds) and clang (the fuzz build). The prebuilt Debian
# oneDNN, TBB and libgomp are not instrumented: ASan still checks every access qgraph makes,
# TSan cannot see their internal synchronisation (see tests/reliability/tsan.supp).

set(QGRAPH_SANITIZE "" CACHE STRING
    "Sanitizers to build with: a list of address, undefined, leak, thread (empty: none)")

if(QGRAPH_SANITIZE)
    set(_qgraph_known address undefined leak thread)
    foreach(s IN LISTS QGRAPH_SANITIZE)
        if(NOT s IN_LIST _qgraph_known)
            message(FATAL_ERROR "QGRAPH_SANITIZE: unknown sanitizer '${s}' "
                "(known: ${_qgraph_known})")
        endif()
    endforeach()
    if("thread" IN_LIST QGRAPH_SANITIZE AND
            ("address" IN_LIST QGRAPH_SANITIZE OR "leak" IN_LIST QGRAPH_SANITIZE))
        message(FATAL_ERROR "QGRAPH_SANITIZE: thread cannot be combined with address or leak")
    endif()
    list(JOIN QGRAPH_SANITIZE "," _qgraph_sanitize_flag)

    # -fno-sanitize-recover: a UBSan finding aborts the test instead of printing and going on,
    # so "no error allowed" is enforced by the exit status, not by reading logs.
    # These builds dominate CI's time, mostly compiling. Given after the build type's flags,
    # so they win: -O1, the level the sanitizers' own documentation suggests, instruments
    # at about half the compile time of -O2 (the JIT kernels under test are generated at
    # run time, unaffected); -g1 keeps the line tables the reports' file:line need and drops
    # the rest of the debug info. Frame pointers give usable stacks at any level.
    # -UNDEBUG: the asserts stay in (the build types' flags define NDEBUG), so the JIT
    # generators' invariants (register budgets, which groups a kernel may take) are checked
    # by every test these builds run.
    add_compile_options(-fsanitize=${_qgraph_sanitize_flag} -fno-sanitize-recover=all
        -fno-omit-frame-pointer -O1 -g1 -UNDEBUG)
    add_link_options(-fsanitize=${_qgraph_sanitize_flag})
    message(STATUS "qgraph: building with -fsanitize=${_qgraph_sanitize_flag}")
endif()
