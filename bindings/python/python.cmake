# The Python module karp (bindings/python): _karp, a pybind11 module over libkarp_c, and the
# package's __init__.py, in build/bindings/python/karp. Included by bindings/CMakeLists.txt.
# Debian's interpreter, the one python3-dev, pybind11-dev and python3-pytest are for.
if(NOT DEFINED Python3_EXECUTABLE AND EXISTS /usr/bin/python3)
  set(Python3_EXECUTABLE /usr/bin/python3)
endif()
find_package(Python3 COMPONENTS Interpreter Development.Module)
set(PYBIND11_FINDPYTHON ON)
if(Python3_FOUND)
  find_package(pybind11 CONFIG QUIET)
endif()
if(NOT Python3_FOUND OR NOT pybind11_FOUND)
  message(STATUS "karp: Python module skipped: needs python3-dev and pybind11-dev")
  return()
endif()
set(KARP_PY_DIR ${CMAKE_CURRENT_BINARY_DIR}/python)
pybind11_add_module(karp_python ${CMAKE_CURRENT_LIST_DIR}/src/module.cc)
set_target_properties(karp_python PROPERTIES OUTPUT_NAME _karp
  LIBRARY_OUTPUT_DIRECTORY ${KARP_PY_DIR}/karp)
target_link_libraries(karp_python PRIVATE karp_c)
target_compile_options(karp_python PRIVATE -Wall -Wextra $<$<BOOL:${KARP_WERROR}>:-Werror>)
configure_file(${CMAKE_CURRENT_LIST_DIR}/karp/__init__.py
  ${KARP_PY_DIR}/karp/__init__.py COPYONLY)
