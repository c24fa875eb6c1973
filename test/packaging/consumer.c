/*
 * consumer.c - a program built against an installed libnqueens, as a user
 * would build one: `cc consumer.c $(pkg-config --cflags --libs nqueens)`.
 * CI compiles it against the files of the Debian packages (.ci/package) to
 * show that the header, the pkg-config file and the library work together.
 * Prints the library version and the number of 8-queens solutions.
 */
#include <stdio.h>

#include <nqueens/nqueens.h>

int main(void)
{
    nq_settings s;
    nq_result r;
    char total[40];

    nq_default_settings(&s);
    s.n = 8;
    int ret = nq_count(&s, &r);
    if (ret < 0) {
        fprintf(stderr, "consumer: %s\n", nq_strerror(ret));
        return 1;
    }
    printf("libnqueens %s: N=8 has %s solutions\n", nq_version(),
           nq_u128_to_string(r.total, total, sizeof total));
    return 0;
}
