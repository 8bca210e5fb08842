// The single Catch2 main of karp_tests; every *_test.cc under tests/ links into it.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
