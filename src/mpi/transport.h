/*
 * transport.h - what nqueens-mpi asks of Open MPI's start-up and end: the
 * transport of a job that runs on one node, and a prompt launcher channel.
 *
 * Open MPI's MPI_Init spends most of its time choosing a transport: it
 * loads and probes each network's (PSM2 and OFI, say), although ranks that
 * all share one node only ever talk through shared memory.  So, before
 * MPI_Init, a rank that Open MPI's launcher started with every rank of the
 * job on its own node asks for the shared-memory path (the ob1 messaging
 * layer, whose vader transport is shared memory), which skips the probes,
 * unless the user or the site chose a messaging layer: in the environment
 * (OMPI_MCA_pml, which `mpiexec --mca pml ...` sets too) or in an MCA
 * parameter file (a `pml = ...` line that names one; a list of exclusions
 * such as Debian's `pml = ^ucx` is no choice).  Jobs spread over several
 * nodes, and jobs started by another launcher (srun, which does not tell a
 * rank how many ranks share its node), are left exactly as they are.
 *
 * After MPI_Init, each rank also turns off Nagle's algorithm on its TCP
 * connection to the launcher's PMIx server (the node's mpiexec or daemon,
 * over loopback, which PMIX_SERVER_URI* names).  MPI_Finalize's fence sends
 * the server a few small messages in a row, and with Nagle's algorithm on
 * the second waits for the acknowledgement of the first, which the server
 * delays (a delayed ACK: tens of milliseconds on Linux) because it has
 * nothing to answer yet.  TCP_NODELAY changes when bytes leave, never what
 * they say, so this is safe with any launcher that uses such a socket.
 */
#ifndef NQ_MPI_TRANSPORT_H
#define NQ_MPI_TRANSPORT_H

/* Call before MPI_Init.  Returns 1 when it chose the shared-memory path
 * (set OMPI_MCA_pml=ob1 in this process's environment), else 0. */
int nq_mpi_choose_transport(void);

/* Call after MPI_Init.  Sets TCP_NODELAY on this rank's TCP connection to
 * the launcher's PMIx server (PMIX_SERVER_URI*), if it has one.  Returns
 * the number of sockets changed. */
int nq_mpi_quicken_launcher_channel(void);

#endif /* NQ_MPI_TRANSPORT_H */
