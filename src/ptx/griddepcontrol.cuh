/*
 * griddepcontrol.cuh — programmatic dependent launch (PTX griddepcontrol, sm_90). One wrapper
 * per instruction form, named after it.
 *
 * A kernel launched with cudaLaunchAttributeProgrammaticStreamSerialization may start while the
 * kernel before it in the stream is still running; it must execute griddepcontrol.wait before
 * its first read or write of global memory that the earlier grids may touch. Launched without
 * the attribute, both instructions are no-ops.
 */
#ifndef IGEMM_PTX_GRIDDEPCONTROL_CUH
#define IGEMM_PTX_GRIDDEPCONTROL_CUH

/* griddepcontrol.wait: blocks the thread until every prerequisite grid has completed and its
 * memory operations are performed and visible to this grid. */
static __device__ __forceinline__ void ptx_griddepcontrol_wait(void)
{
    asm volatile("griddepcontrol.wait;\n" ::: "memory");
}

/* griddepcontrol.launch_dependents: the dependent grid (launched with the attribute) may be
 * scheduled once every CTA of this grid has issued this or exited. Implies nothing about memory:
 * the dependent still waits (above) for this grid's completion before touching its data. */
static __device__ __forceinline__ void ptx_griddepcontrol_launch_dependents(void)
{
    asm volatile("griddepcontrol.launch_dependents;\n" ::: "memory");
}

#endif /* IGEMM_PTX_GRIDDEPCONTROL_CUH */
