/* instances.c — igemm_sm90_instance_find over the generated instance tables (instances.h). */
#include "instances.h"

#include <stddef.h>

#ifdef IGEMM_HAVE_CUDA /* (the tables exist in CUDA builds only) */

const void *igemm_sm90_instance_find(const sm90_instance_t *k)
{
    for (int t = 0; igemm_sm90_instance_tables[t] != NULL; t++)
        for (const sm90_instance_t *e = igemm_sm90_instance_tables[t]; e->fn != NULL; e++)
            if (e->kernel == k->kernel && e->dtype == k->dtype && e->bm == k->bm && e->bn == k->bn && e->wm == k->wm &&
                e->nc == k->nc && e->bres == k->bres && e->rows == k->rows && e->ks == k->ks && e->tma == k->tma &&
                e->epi == k->epi && e->gw == k->gw)
                return e->fn;
    return NULL;
}
#endif
