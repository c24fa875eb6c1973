/*
 * symmetry.h - the eight symmetries of the square board (the dihedral group
 * D4) acting on squares and on whole solutions.
 *
 * The full-symmetry engine needs them twice: to pick one canonical
 * arrangement of border queens out of each orbit when it plans, and, for the
 * rare arrangements that some rotation maps onto themselves, to test at a
 * leaf which of those rotations also fix the complete solution.  Keeping the
 * maps in one place means both uses agree on what "symmetry g" is.
 */
#ifndef NQ_SYMMETRY_H
#define NQ_SYMMETRY_H

/* Number of board symmetries; index 0 is the identity. */
#define NQ_SYMMETRIES 8

/* Maps square (row, col) of an n x n board through symmetry g (0..7) into
 * (*row_out, *col_out).  g: 0 identity, 1..3 rotations by 90/180/270
 * degrees, 4..7 the four reflections. */
void nq_sym_point(int g, int n, int row, int col, int *row_out, int *col_out);

/* Writes into image[] the solution cols[] (cols[row] = column of the row's
 * queen) seen through symmetry g.  image must not alias cols. */
void nq_sym_board(int g, int n, const int *cols, int *image);

/* 1 when symmetry g maps the solution cols[] onto itself, else 0. */
int nq_sym_fixes(int g, int n, const int *cols);

#endif /* NQ_SYMMETRY_H */
