// consumer.cpp - test/packaging/consumer.c's count from C++, built by the
// CMake consumer (CMakeLists.txt) through nqueens::nqueens: the installed
// header and the imported target serve C++ projects as they serve C ones.
// Prints the same line as consumer.c.
#include <cstdio>

#include <nqueens/nqueens.h>

int main()
{
    nq_settings s;
    nq_result r;
    char total[40];

    nq_default_settings(&s);
    s.n = 8;
    const int ret = nq_count(&s, &r);
    if (ret < 0) {
        std::fprintf(stderr, "consumer: %s\n", nq_strerror(ret));
        return 1;
    }
    std::printf("libnqueens %s: N=8 has %s solutions\n", nq_version(),
                nq_u128_decimal(&r.total, total, sizeof total));
    return 0;
}
