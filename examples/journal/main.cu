// The same program compiled by nvcc (with journal_program.cu), so that
// journal_program.cpp's launch reaches the GPU when --gpu is given.
#include "main.cpp"
