/*
 * mem_args.h — what the memory-bound mma.sync families (skinny_gemm.cu, narrow_1x1.cu,
 * grouped.cu) copy alike from a problem into their kernel arguments: the operands and the fused
 * epilogue. Their argument structs keep their own layouts (each kernel's register allocation was
 * measured with it); they share the field names this macro writes. Host only.
 */
#ifndef IGEMM_MEM_ARGS_H
#define IGEMM_MEM_ARGS_H

/* a: a kernel-argument struct with the fields x, w, y, scale, bias, residual, alpha, beta,
 * act_param, act, has_scale, has_bias, has_residual, out_dtype; p: const igemm_conv_params_t *. */
#define MEM_ARGS_SET_OPERANDS(a, p)                                                                     \
    do {                                                                                                \
        (a).x = (p)->x;                                                                                 \
        (a).w = (p)->filter;                                                                            \
        (a).y = (p)->y;                                                                                 \
        (a).scale = (p)->scale;                                                                         \
        (a).bias = (p)->bias;                                                                           \
        (a).residual = (p)->residual;                                                                   \
        (a).alpha = (p)->alpha;                                                                         \
        (a).beta = (p)->beta;                                                                           \
        (a).act_param = (p)->act_param;                                                                 \
        (a).act = (p)->act;                                                                             \
        (a).has_scale = (p)->has_scale;                                                                 \
        (a).has_bias = (p)->has_bias;                                                                   \
        (a).has_residual = (p)->has_residual;                                                           \
        (a).out_dtype = (p)->out_dtype;                                                                 \
    } while (0)

#endif /* IGEMM_MEM_ARGS_H */
