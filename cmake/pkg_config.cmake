# qgraph.pc for pkg-config users: `g++ app.cpp $(pkg-config --cflags --libs qgraph)`.
# Included from the top-level CMakeLists.txt after GNUInstallDirs and find_package(OpenMP).
#
# The file holds an absolute prefix, and `cmake --install --prefix P` chooses P after
# configuring, so it is written in two steps: configuring fills in everything but the prefix
# (qgraph.pc.in in the build folder keeps `@CMAKE_INSTALL_PREFIX@`), installing fills in the
# prefix actually installed to, then installs the file.
#
# oneDNN, TBB and OpenMP are private to libqgraph.so: Libs.private names them for a static
# link, and there is no Requires.private, because pkg-config resolves Requires.private even
# for --cflags, and TBB's tbb.pc comes only with libtbb-dev (oneDNN has no .pc): a machine
# with just the runtime libraries must be able to use qgraph.pc.

set(QGRAPH_PC_PREFIX "@CMAKE_INSTALL_PREFIX@")
foreach(dir LIBDIR INCLUDEDIR)
    if(IS_ABSOLUTE "${CMAKE_INSTALL_${dir}}")
        set(QGRAPH_PC_${dir} "${CMAKE_INSTALL_${dir}}")
    else()
        set(QGRAPH_PC_${dir} "\${prefix}/${CMAKE_INSTALL_${dir}}")
    endif()
endforeach()
set(QGRAPH_PC_LIBS_PRIVATE -ldnnl -ltbb)
foreach(lib IN LISTS OpenMP_CXX_LIB_NAMES)
    list(APPEND QGRAPH_PC_LIBS_PRIVATE -l${lib})
endforeach()
list(JOIN QGRAPH_PC_LIBS_PRIVATE " " QGRAPH_PC_LIBS_PRIVATE)

configure_file(${CMAKE_CURRENT_LIST_DIR}/qgraph.pc.in ${PROJECT_BINARY_DIR}/qgraph.pc.in @ONLY)
install(CODE "configure_file(\"${PROJECT_BINARY_DIR}/qgraph.pc.in\"
    \"${PROJECT_BINARY_DIR}/qgraph.pc\" @ONLY)")
install(FILES ${PROJECT_BINARY_DIR}/qgraph.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
