# stap_pmu_sub_build(NAME BINARY_DIR ARGS <cmake -D...> BYPRODUCTS <files>):
# this same project configured a second time (another compiler, other
# options) and built as a step of the host build: the arm64 guest programs
# (guest/) and the instrumented fuzz tree (tests/fuzz/). The host's compiler
# launcher (ccache, say) is passed on; BUILD_ALWAYS lets the sub-build's own
# make see every edit of the sources it uses and decide what to rebuild.
include(ExternalProject)

function(stap_pmu_sub_build name binary_dir)
  cmake_parse_arguments(SB "" "" "ARGS;BYPRODUCTS" ${ARGN})
  set(args ${SB_ARGS})
  foreach(lang C CXX)
    if(CMAKE_${lang}_COMPILER_LAUNCHER)
      list(APPEND args -DCMAKE_${lang}_COMPILER_LAUNCHER=${CMAKE_${lang}_COMPILER_LAUNCHER})
    endif()
  endforeach()
  ExternalProject_Add(${name}
    SOURCE_DIR ${PROJECT_SOURCE_DIR}
    BINARY_DIR ${binary_dir}
    CMAKE_ARGS ${args}
    BUILD_ALWAYS ON
    INSTALL_COMMAND ""
    BUILD_BYPRODUCTS ${SB_BYPRODUCTS})
endfunction()
