/*
 * symmetry.c - the eight board symmetries (see symmetry.h).
 */
#include "engines/full/symmetry.h"

void nq_sym_point(int g, int n, int row, int col, int *row_out, int *col_out)
{
    const int m = n - 1;
    int r = row, c = col;
    switch (g) {
    case 0: break;
    case 1: r = col; c = m - row; break;     /* rotate 90 degrees clockwise */
    case 2: r = m - row; c = m - col; break; /* rotate 180 */
    case 3: r = m - col; c = row; break;     /* rotate 270 */
    case 4: c = m - col; break;              /* left-right mirror */
    case 5: r = m - row; break;              /* top-bottom mirror */
    case 6: r = col; c = row; break;         /* main-diagonal transpose */
    default: r = m - col; c = m - row; break; /* anti-diagonal transpose */
    }
    *row_out = r;
    *col_out = c;
}

void nq_sym_board(int g, int n, const int *cols, int *image)
{
    for (int row = 0; row < n; row++) {
        int r, c;
        nq_sym_point(g, n, row, cols[row], &r, &c);
        image[r] = c;
    }
}

int nq_sym_fixes(int g, int n, const int *cols)
{
    for (int row = 0; row < n; row++) {
        int r, c;
        nq_sym_point(g, n, row, cols[row], &r, &c);
        if (cols[r] != c)
            return 0;
    }
    return 1;
}
