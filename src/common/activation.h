/*
 * activation.h — the one definition of the epilogue activations (igemm_activation_t), for the
 * CPU reference in double (src/ref: igemm_act_host) and the device epilogue in float
 * (src/common/epilogue.cuh: igemm_act_dev). C and CUDA C.
 *
 * IGEMM_ACTIVATION_BODY expands to the switch over act for the type T with that type's math
 * functions (fmax/fmaxf, ...). Every GPU path must match the double version up to fp32 rounding.
 */
#ifndef IGEMM_ACTIVATION_H
#define IGEMM_ACTIVATION_H

#include "../../include/igemm.h"

/* The statement `switch (act) { ... }` returning act(v) of type T; prm is the leaky-relu
 * slope. MAX, MIN, ERF, TANH, EXP: T's functions. */
#define IGEMM_ACTIVATION_BODY(T, act, v, prm, MAX, MIN, ERF, TANH, EXP)                                   \
    switch (act) {                                                                                        \
    case IGEMM_ACT_RELU: return MAX(v, (T)0);                                                             \
    case IGEMM_ACT_RELU6: return MIN(MAX(v, (T)0), (T)6);                                                 \
    case IGEMM_ACT_LEAKY_RELU: return v > (T)0 ? v : v * (prm);                                           \
    case IGEMM_ACT_GELU_ERF: return (T)0.5 * v * ((T)1 + ERF(v * (T)0.70710678118654752440));              \
    case IGEMM_ACT_GELU_TANH: {                                                                           \
        const T u_ = (T)0.79788456080286535588 * (v + (T)0.044715 * v * v * v);                          \
        return (T)0.5 * v * ((T)1 + TANH(u_));                                                            \
    }                                                                                                     \
    case IGEMM_ACT_SILU: return v / ((T)1 + EXP(-v));                                                     \
    case IGEMM_ACT_SIGMOID: return (T)1 / ((T)1 + EXP(-v));                                               \
    case IGEMM_ACT_TANH: return TANH(v);                                                                  \
    case IGEMM_ACT_HARDSWISH: return v * (MIN(MAX(v + (T)3, (T)0), (T)6) / (T)6);                          \
    case IGEMM_ACT_HARDSIGMOID: return MIN(MAX(v + (T)3, (T)0), (T)6) / (T)6;                              \
    default: return v;                                                                                    \
    }

#endif /* IGEMM_ACTIVATION_H */
