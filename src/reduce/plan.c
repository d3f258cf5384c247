#include "plan.h"

static size_t ceil_div(size_t a, size_t b) { return (a + b - 1) / b; }

static size_t ceil_log2(size_t x)
{
    size_t bits = 0;
    while (((size_t)1 << bits) < x)
        bits++;
    return bits;
}

unsigned wk_reduce_max_grid(int sm_count)
{
    return (unsigned)(sm_count > 0 ? sm_count : 1) * WK_REDUCE_BLOCKS_PER_SM;
}

int wk_plan_reduce(uintptr_t addr, size_t n, size_t elem_size, int sm_count,
                   wk_reduce_plan *plan)
{
    if (!plan || elem_size == 0 || WK_VECTOR_BYTES % elem_size != 0 || addr % elem_size != 0)
        return -1;
    size_t vec_elems = WK_VECTOR_BYTES / elem_size;
    size_t misalign = addr % WK_VECTOR_BYTES;
    size_t head = misalign ? (WK_VECTOR_BYTES - misalign) / elem_size : 0;
    if (head > n)
        head = n;
    size_t nvec = (n - head) / vec_elems;

    plan->head = head;
    plan->nvec = nvec;
    plan->tail = n - head - nvec * vec_elems;
    plan->vec_elems = (unsigned)vec_elems;
    plan->block = WK_REDUCE_THREADS;

    /* Enough blocks that each thread has WK_REDUCE_UNROLL vectors in flight,
     * but no more than fit on the device at once. */
    size_t per_block = (size_t)WK_REDUCE_THREADS * WK_REDUCE_UNROLL;
    size_t wanted = ceil_div(nvec, per_block);
    size_t cap = wk_reduce_max_grid(sm_count);
    plan->grid = (unsigned)(wanted < 1 ? 1 : wanted > cap ? cap : wanted);
    return 0;
}

size_t wk_reduce_plan_depth(const wk_reduce_plan *plan)
{
    size_t threads = (size_t)plan->grid * plan->block;
    /* Each thread folds its vectors' elements one by one, plus at most one
     * head and one tail element. */
    size_t per_thread = ceil_div(plan->nvec, threads) * plan->vec_elems + 2;
    /* Block tree, then the last block folds the partials and runs its tree. */
    size_t block_tree = ceil_log2(plan->block);
    size_t partials = ceil_div(plan->grid, plan->block);
    return per_thread + block_tree + partials + block_tree + 1;
}
