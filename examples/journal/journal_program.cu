// journal_program.cpp compiled by nvcc: its launch_target then launches the
// kernel on a GPU when it is given a gpu_session.
#include "journal_program.cpp"
